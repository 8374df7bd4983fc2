#!/usr/bin/env bash
# Call 3 (thirtieth session): the branch as it lands (nsa-dq-staged without its A/B switch: call 2's S2 kernels, the
# same source less the macro), issue 14's side by side with fla-core 0.5.2 on every published shape in one run (the
# fp32 dQ default), then the quick NSA verify of this build.
#   bash docs/results/gpu-2026-12-06d/call3/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d3
xz -dc .gpupack/var/land.fatbin.xz > /tmp/land.fatbin
ab_pack /tmp/pl /tmp/land.fatbin nsa-dq-staged
python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1
ab_el "side by side with fla"
OUT=$ab_res/fla PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=all NSA_COMPARE_ORDERS="warp block" \
  NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=190 NSA_COMPARE_TIMEOUT=240 timeout -k 5 250 /tmp/pl/nsa-run.sh \
  > "$ab_res/fla.out" 2>&1
echo "rc=$?"; sed -n '/== summary/,$p' "$ab_res/fla.out" | tail -16
ab_save
ab_el "quick verify"
OUT=$ab_res/check NSA_PARTS="verify" NSA_VERIFY=quick timeout -k 5 100 /tmp/pl/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify.out" | head -6
ab_save
ab_el done
