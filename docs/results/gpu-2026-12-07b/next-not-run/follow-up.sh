#!/usr/bin/env bash
# Prepared in the thirty-ninth session, not run; after driver.sh, on the build named by BUILD (t15, t15k or main):
# the D = 64 rule's crossing (walk against the warp order on random selections of falling sharing), issue 14's
# random-selection side by side at D = 64 (forward and backward; orders warp and shared), the quick verify matrix.
# Carry .gpupack (as for driver.sh) and .whl.
#   BUILD=t15 CALL_BUDGET=560 bash docs/results/gpu-2026-12-07b/next-not-run/follow-up.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
left() { echo $(( ${CALL_BUDGET:-560} - ($(date +%s) - ab_t0) )); }
[[ -f /tmp/main.fatbin ]] || xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
case ${BUILD:?} in
  t15 | t15k) ab_pack /tmp/pc2 /tmp/$BUILD.fatbin $BUILD .gpupack/var/t15-engine.jar ;;
  *) ab_pack /tmp/pc2 /tmp/main.fatbin main-87882a9 ;;
esac
ab_el "the D = 64 crossing, $BUILD: walk and warp order on random selections"
for t in 65536 98304 131072; do
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "/tmp/pc2:shared" "fwd random 1 $t 64 64 10"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/pc2:warp" "fwd random 1 $t 64 64 10"
done
grep -ho '"walk_sharing":[0-9.]*' "$ab_res"/ab/shared-*.jsonl | head -3
ab_save
ab_el "random selections side by side, $BUILD"
AB_CHECK_TIMEOUT=$(( $(left) - 150 )) ab_nsa_fla /tmp/pc2 fla-random NSA_COMPARE_SELECTION=random \
  NSA_COMPARE_ORDERS="warp shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 210 )) \
  NSA_COMPARE_TIMEOUT=$(( $(left) - 160 )) NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;1,8192,64,4,64,64,16;1,65536,64,4,64,64,16"
ab_save
if (( $(left) > 60 )); then
  ab_el "$BUILD: quick verify matrix"
  AB_CHECK_TIMEOUT=$(( $(left) - 5 )) ab_nsa_check /tmp/pc2 check NSA_PARTS=verify NSA_VERIFY=quick
  ab_save
fi
ab_el done
