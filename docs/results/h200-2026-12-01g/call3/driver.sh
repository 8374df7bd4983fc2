#!/usr/bin/env bash
# session 7, call 3: Nsight Compute profiles of the D=256 backward v2b (this pack) and v2a, causal 8K B=4 H=16
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/f3
mkdir -p "$res"
mkvar() { local d=/tmp/pack-$1; mkdir -p "$d/lib"; ln -sf "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
  cp "$2" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"; }
mkvar v2a "$root/.oldjar/saw-engine-v2a.jar"
prof() { # TAG PACK
  timeout -k 5 200 ncu --clock-control none --target-processes all -k regex:'^bwd_wgmma_bf16_d256' --launch-skip 2 --launch-count 1 \
    --set full --import-source no -f -o "$res/prof-$1" \
    "$2/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 --head-dim 256 --dtype bf16 --block 64x64 --pass bwd --reps 1 --warmup 2 \
    --out "/tmp/ncu-$1.jsonl" > "$res/prof-$1.log" 2>&1
  echo "ncu $1 rc=$?"
  ncu -i "$res/prof-$1.ncu-rep" --page details --print-details all > "$res/prof-$1-details.txt" 2>&1
  ncu -i "$res/prof-$1.ncu-rep" --page source --csv --print-source sass > "$res/prof-$1-source.csv" 2>&1
  gzip -f "$res/prof-$1-source.csv" "$res/prof-$1-details.txt"
  rm -f "$res/prof-$1.ncu-rep"
}
prof v2b "$pack"
prof v2a /tmp/pack-v2a
