#!/usr/bin/env bash
# Twenty-first session, call 4 (the command as it ran, on the machine call 3 left warm): call 3's flex-compare state
# resumed with FlexAttention's max-autotune rows (flex-compare.sh's default AUTOTUNE_ROWS), cut by its 420 s limit
# after four rows, before the table stage; table.md / table.txt were made afterwards from the returned results with
# `python3 bench/compare_flex.py table results/saw-*.json flex/flex-*.json --markdown table.md` (no GPU needed).
set -uo pipefail; exec > >(tee "$OUT/driver4.log") 2>&1; ls /tmp/c3/flex-compare/flex | head -3
OUT=/tmp/c3 STAGES="flex table" PYTHONPATH=$PWD/python timeout -k 10 420 .gpupack/flex-compare.sh; echo "rc=$?"
cp /tmp/c3/flex-compare/table.md $OUT/table-at.md
tar czf $OUT/fc-at.tgz -C /tmp/c3 --exclude=flex-compare/layouts --exclude=flex-compare/dumps flex-compare
