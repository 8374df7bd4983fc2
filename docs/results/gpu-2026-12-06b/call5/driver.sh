#!/usr/bin/env bash
# Call 5 (twenty-eighth session): the branch as it would land (nsa-bwd-order at 780bb20: the NSA warpgroup backward
# with L2 priorities, the backward's token chunks by the measured rule; a full pack, SAW_PACK_SLIM=1 bench/gpu-pack.sh
# .gpupack). Issue 14's side-by-side with fla-core 0.5.2 on every published shape first, then the whole NSA verify
# matrix and compute-sanitizer memcheck and racecheck. Carried: .gpupack, .whl (fla_core-0.5.2, einops-0.8.2).
#   bash docs/results/gpu-2026-12-06b/call5/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c5
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -o 'SAW_GIT_COMMIT:-[^}]*' .gpupack/saw
mkdir -p /tmp/site && python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1
ab_el "1. side by side with fla"
OUT=$ab_res PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=all NSA_COMPARE_ORDERS="warp block" NSA_FAMILIES=wgmma \
  NSA_COMPARE_SECONDS=190 NSA_COMPARE_TIMEOUT=240 timeout -k 5 250 .gpupack/nsa-run.sh > "$ab_res/compare.out" 2>&1 \
  || echo "compare rc=$?"
cat "$ab_res/nsa/compare-summary.txt"
ab_el "2. verify matrix"
OUT=$ab_res/v NSA_PARTS=verify timeout -k 5 150 .gpupack/nsa-run.sh > "$ab_res/verify.out" 2>&1 || echo "verify rc=$?"
grep -E '^FAIL|verify matrix|failed:' "$ab_res/verify.out"
ab_el "3. sanitizers"
OUT=$ab_res/s NSA_PARTS=sanitizer NSA_SAN_TOOLS="memcheck racecheck" timeout -k 5 140 .gpupack/nsa-run.sh \
  > "$ab_res/san.out" 2>&1 || echo "sanitizer rc=$?"
grep 'compute-sanitizer' "$ab_res/san.out"
ab_save
ab_el done
