#!/usr/bin/env bash
# Twenty-second session, call 8: call 5's driver (issue 12's rows with frontier-table.sh, cuDNN both ways on GQA rows;
# flex-compare on the causal and GQA rows with max-autotune) asked of the H200 kind, the GPU issue 12's targets name,
# with the same pack (main af9764a's kernels, sm_90a-only fatbin). About 6-8 minutes.
set -uo pipefail
root=$PWD
exec > >(tee "$OUT/driver.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$root/.gpupack/saw" | head -1
res=/tmp/c8
mkdir -p "$res"
OUT=$res timeout -k 5 200 "$root/.gpupack/frontier-table.sh" > "$res/frontier-table.out" 2>&1; echo "frontier-table rc=$?"
cat "$res/frontier/table.txt"; grep layouts "$res/frontier/cudnn.txt"
OUT=$res ROWS='^(causal|gqa-32-8)$' PYTHONPATH="$root/python" timeout -k 10 330 "$root/.gpupack/flex-compare.sh" \
  > "$res/flex-compare.out" 2>&1; echo "flex-compare rc=$?"
tail -30 "$res/flex-compare.out"
tar czf "$OUT/c8.tgz" -C /tmp --exclude=c8/frontier/specs --exclude=c8/flex-compare/layouts --exclude=c8/flex-compare/dumps c8
