#!/usr/bin/env bash
# The follow-up call on the warm machine: issue 14's random-selection side by side with fla-core 0.5.2 (forward and
# backward, orders warp and shared, the wgmma family) on the build named by BUILD (keys128 or main), then its scored
# D = 64 rows if time is left. Carry .gpupack (as call 1's) and .whl.
#   BUILD=keys128 CALL_BUDGET=440 bash docs/results/gpu-2026-12-07/call2/driver.sh > /dev/null 2>&1
#   tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
left() { echo $(( ${CALL_BUDGET:-440} - ($(date +%s) - ab_t0) )); }
[[ -f /tmp/main.fatbin ]] || xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
if [[ ${BUILD:?} == keys128 ]]; then
  ab_pack /tmp/pc2 /tmp/keys128.fatbin keys128 .gpupack/var/keys128-engine.jar
else
  ab_pack /tmp/pc2 /tmp/main.fatbin main-9f095ea
fi
ab_el "random selections side by side, $BUILD"
AB_CHECK_TIMEOUT=$(( $(left) - 100 )) ab_nsa_fla /tmp/pc2 fla-random NSA_COMPARE_SELECTION=random \
  NSA_COMPARE_ORDERS="warp shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 160 )) \
  NSA_COMPARE_TIMEOUT=$(( $(left) - 110 )) NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,8192,64,4,128,64,16;1,32768,64,4,128,64,16;4,16384,64,4,128,64,16;1,65536,64,4,128,64,16;1,32768,64,4,64,64,16"
ab_save
if (( $(left) > 80 )); then
  ab_el "scored D = 64 side by side, $BUILD"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pc2 fla-scored64 NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 60 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,64,64,16;4,16384,64,4,64,64,16"
  ab_save
fi
ab_el done
