#!/usr/bin/env bash
# Written in the twenty-first session for the next one with a GPU (not run: no device time was left). From the
# repository root with a pack of main carried as .gpupack (bash bench/gpu-pack.sh .gpupack): 1. issue 12's rows with
# cuDNN timed both ways on the GQA rows (enable_gqa=True and K/V repeated; frontier-table.sh prints both on a
# "layouts" line); 2. flex-compare.sh on the causal and GQA rows with FlexAttention's max-autotune on its default
# subset, cuDNN there also both ways (compare_flex.py's time_cudnn). About 6-8 minutes on an H200.
set -uo pipefail
root=$PWD
exec > >(tee "$OUT/driver.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$root/.gpupack/saw" | head -1
res=/tmp/c5
mkdir -p "$res"
OUT=$res timeout -k 5 200 "$root/.gpupack/frontier-table.sh" > "$res/frontier-table.out" 2>&1; echo "frontier-table rc=$?"
cat "$res/frontier/table.txt"; grep layouts "$res/frontier/cudnn.txt"
OUT=$res ROWS='^(causal|gqa-32-8)$' PYTHONPATH="$root/python" timeout -k 10 330 "$root/.gpupack/flex-compare.sh" \
  > "$res/flex-compare.out" 2>&1; echo "flex-compare rc=$?"
tail -30 "$res/flex-compare.out"
tar czf "$OUT/c5.tgz" -C /tmp --exclude=c5/frontier/specs --exclude=c5/flex-compare/layouts --exclude=c5/flex-compare/dumps c5
