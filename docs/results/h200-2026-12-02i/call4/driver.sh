#!/usr/bin/env bash
# session 9, call 4 (pack at a761c35, persistent forward with one work queue per stream): ring-run with virtual
# devices at D = 128 and 64 (forwards of several streams at once on one GPU), then flex-compare's default table
# (saw, FlexAttention default mode, cuDNN; AUTOTUNE_ROWS=none), cut at 470 s
set -uo pipefail
root=$PWD
pack=$root/.gpupack
mkdir -p "$OUT/i4"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
for hd in 128 64; do
  timeout 90 "$pack/saw" ring-run preset:causal --seq 4096 --head-dim $hd --block 128x128 --heads 8 --kv-heads 2 --devices 2,4 --gpus 1 \
    --scheme all --repeat 2 > "$OUT/i4/ring-d$hd.log" 2>&1
  echo "ring-run D=$hd one GPU rc=$?"; grep -E "^[0-9] " "$OUT/i4/ring-d$hd.log" | awk '{print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $NF}' | head -8; grep -E "^(PASS|FAIL)" "$OUT/i4/ring-d$hd.log"
done
el "flex-compare (default table)"
OUT=$OUT PYTHONPATH=$PWD/python AUTOTUNE_ROWS=none timeout 470 bash "$pack/flex-compare.sh" > "$OUT/flex.log" 2>&1; echo "flex-compare rc=$?"
el done
