#!/usr/bin/env bash
# Call 1 (twenty-eighth session): the landed build (main 8531a91, the pack's own fatbin) on whatever GPU the call got
# (asked for an H200: issue 12's and 14's targets are H200 targets): issue 12's table with cuDNN and the ragged-batch
# peers (frontier-table.sh), then issue 14's side-by-side with fla-core 0.5.2 on every published shape
# (nsa-run.sh part compare, warp and per-block orders, wgmma family). Carried: .gpupack (SAW_PACK_SLIM=1
# bench/gpu-pack.sh .gpupack at 8531a91) and .whl (fla_core-0.5.2, einops-0.8.2 wheels).
#   bash docs/results/gpu-2026-12-06b/call1/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
(mkdir -p /tmp/site && python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1) &
pip_pid=$!
ab_el "1. issue 12's table"
OUT=$ab_res timeout -k 5 280 .gpupack/frontier-table.sh > /dev/null 2>&1 || echo "frontier-table rc=$?"
cat "$ab_res/frontier/varlen.txt" "$ab_res/frontier/table.txt"
wait $pip_pid
ab_el "2. issue 14's side-by-side"
OUT=$ab_res PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=all NSA_COMPARE_ORDERS="warp block" NSA_FAMILIES=wgmma \
  NSA_COMPARE_SECONDS=200 NSA_COMPARE_TIMEOUT=250 timeout -k 5 270 .gpupack/nsa-run.sh > "$ab_res/nsa-run.out" 2>&1 \
  || echo "nsa-run rc=$?"
cat "$ab_res/nsa/compare-summary.txt"
ab_save
ab_el done
