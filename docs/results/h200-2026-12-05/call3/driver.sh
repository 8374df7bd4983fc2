#!/usr/bin/env bash
# Twenty-first session, call 3: saw against FlexAttention (torch.compile default mode; max-autotune left out to fit
# one 10-minute call) and cuDNN on every flex-compare.sh row, on the landed build (persistent backward, retired
# families, per-thread ring releases). Same pack as call 2. Results come back as $OUT/fc.tgz (+ driver.log, table.md).
set -uo pipefail
root=$PWD
exec > >(tee "$OUT/driver.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$root/.gpupack/saw" | head -1
res=/tmp/c3
mkdir -p "$res"
OUT=$res AUTOTUNE_ROWS=none PYTHONPATH="$root/python" timeout -k 10 540 "$root/.gpupack/flex-compare.sh"
echo "flex-compare rc=$?"
cp "$res/flex-compare/table.md" "$OUT/" 2>/dev/null
tar czf "$OUT/fc.tgz" -C "$res" --exclude=flex-compare/layouts --exclude=flex-compare/dumps flex-compare
