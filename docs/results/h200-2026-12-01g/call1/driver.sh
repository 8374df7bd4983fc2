#!/usr/bin/env bash
# session 7, call 1: Nsight Compute profiles (stall samples per SASS instruction) of the D=256 backward (bwd_wgmma d256,
# causal 8K B=4 H=16, 64x64) and the D=64 warp-specialised backward (causal 8K B=4 H=16, 128x128), main 71e7471
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/f1
mkdir -p "$res"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -2
prof() { # TAG REGEX D BLOCK ARGS...
  local tag=$1 rx=$2 d=$3 blk=$4; shift 4
  timeout -k 5 200 ncu --clock-control none --target-processes all -k regex:"$rx" --launch-skip 2 --launch-count 1 \
    --set full --import-source no -f -o "$res/prof-$tag" \
    "$pack/saw" bench preset:causal --backend gpu "$@" --head-dim $d --dtype bf16 --block $blk --pass bwd --reps 1 --warmup 2 \
    --out "/tmp/ncu-$tag.jsonl" > "$res/prof-$tag.log" 2>&1
  echo "ncu $tag rc=$?"
  ncu -i "$res/prof-$tag.ncu-rep" --page details --print-details all > "$res/prof-$tag-details.txt" 2>&1
  ncu -i "$res/prof-$tag.ncu-rep" --page source --csv --print-source sass > "$res/prof-$tag-source.csv" 2>&1
  gzip -f "$res/prof-$tag-source.csv" "$res/prof-$tag-details.txt"
  rm -f "$res/prof-$tag.ncu-rep"
}
el "profile D=256"
prof d256 '^bwd_wgmma_bf16_d256' 256 64x64 --seq 8192 --batch 4 --heads 16
el "profile D=64"
prof d64 '^bwd_wgmmaws_bf16_d64' 64 128x128 --seq 8192 --batch 4 --heads 16
el "timing"
for d in 256 64; do
  blk=128x128; [[ $d == 256 ]] && blk=64x64
  SAW_JAVA_OPTS=-Xmx24g timeout 100 "$pack/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 --head-dim $d \
    --dtype bf16 --block $blk --pass bwd --reps 10 --warmup 2 --out "$res/causal8k-d$d.jsonl" > "$res/time-d$d.log" 2>&1
  echo "d$d rc=$? $(tail -1 "$res/causal8k-d$d.jsonl" | head -c 400)"
done
el done
