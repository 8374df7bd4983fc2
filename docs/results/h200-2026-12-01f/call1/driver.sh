#!/usr/bin/env bash
# session 6, call 1: Nsight Compute profiles of the D=128 backward (causal 8K and 64 documents in 32K, stall samples per
# SASS instruction), the SM clock under a long backward, and FlexAttention at 2M (window, chunked) for issue 18
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/e1
mkdir -p "$res/specs"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,memory.total --format=csv
grep -i commit "$pack/saw" | head -2
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
cat > "$res/specs/docs64-32k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs64-32k", "seq_len_q": 32768, "seq_len_kv": 32768, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [$L$((32768 - SUM))] } } ] } }
JSON
prof() { # TAG SPEC ARGS...
  local tag=$1 sp=$2; shift 2
  timeout -k 5 150 ncu --clock-control none --target-processes all -k regex:'^bwd_wgmmaws_bf16_d' --launch-skip 2 --launch-count 1 \
    --set full --import-source no -f -o "$res/prof-$tag" \
    "$pack/saw" bench "$sp" --backend gpu "$@" --head-dim 128 --dtype bf16 --block 128x128 --pass bwd --reps 1 --warmup 2 \
    --out "/tmp/ncu-$tag.jsonl" > "$res/prof-$tag.log" 2>&1
  echo "ncu $tag rc=$?"
  ncu -i "$res/prof-$tag.ncu-rep" --page details --print-details all > "$res/prof-$tag-details.txt" 2>&1
  ncu -i "$res/prof-$tag.ncu-rep" --page source --csv --print-source sass > "$res/prof-$tag-source.csv" 2>&1
  ncu -i "$res/prof-$tag.ncu-rep" --page raw --csv > "$res/prof-$tag-raw.csv" 2>&1
  gzip -f "$res/prof-$tag-source.csv" "$res/prof-$tag-raw.csv"
  rm -f "$res/prof-$tag.ncu-rep"
}
el "profile causal 8K"
prof causal8k preset:causal --seq 8192 --batch 4 --heads 16
el "profile docs64 32K"
prof docs64 "$res/specs/docs64-32k.json" --batch 1 --heads 16
el "clock under a causal 16K backward"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 > "$res/clock.csv" 2>&1 &
smi=$!
SAW_JAVA_OPTS=-Xmx24g timeout 120 "$pack/saw" bench preset:causal --backend gpu --seq 16384 --batch 4 --heads 16 --head-dim 128 \
  --dtype bf16 --block 128x128 --pass bwd --reps 20 --warmup 3 --out "$res/causal16k-bwd.jsonl" > "$res/causal16k.log" 2>&1
kill $smi
el "flex 2M"
OUT=$res SAW_LONG_SIZES=2097152 SAW_LONG_MASKS="window chunked" SAW_LONG_VERIFY=0 SAW_LONG_FLEX=1 \
  SAW_LONG_FLEX_SIZES="2097152" SAW_LONG_FLEX_BUDGET=120 timeout -k 5 330 bash "$pack/long-context.sh" > "$res/long-2m.txt" 2>&1
el "flex rc=$?"
cat "$res/long-2m.txt" | tail -30
el done
