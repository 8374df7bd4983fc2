#!/usr/bin/env bash
# Forty-third session, call 3, the same build as call 2 (walkvote.fatbin, sha256 73d563d6..., and var/engine.jar,
# sha256 b40712b9...):
#  1. the eight cases of the full NSA verify matrix that call 2's time limit cut (it passed the first 33 of 41):
#     nsa-run.sh with NSA_VERIFY_SKIP=33;
#  2. issue 14's random-selection side by side a second time (call 1 ran it once), the rows in the reverse order,
#     the walk only (auto takes it on every one of these rows), if 90 s are left (the session's device time was short:
#     the call was cut from 400 to 250 s).
# Carry .gpupack and .whl:
#   CALL_BUDGET=250 bash docs/results/gpu-2026-12-07f/call3/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c3
left() { echo $(( ${CALL_BUDGET:-250} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/walk.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin .gpupack/var/engine.jar
ab_pack /tmp/pf /tmp/walkvote.fatbin main-9b250b2 "$ab_root/.gpupack/var/engine.jar"
cp bench/gpu/nsa-run.sh /tmp/pf/
ab_el "NSA verify matrix, cases 34-41"
AB_CHECK_TIMEOUT=$(( $(left) - 20 )) ab_nsa_check /tmp/pf check NSA_PARTS=verify NSA_VERIFY_SKIP=33
ab_save
if (( $(left) > 90 )); then
  ab_el "issue 14: random side by side, second run"
  AB_CHECK_TIMEOUT=$(( $(left) - 5 )) ab_nsa_fla /tmp/pf fla-random NSA_COMPARE_SELECTION=random \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 35 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 10 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,8192,64,4,128,64,16;1,32768,64,4,128,64,16;4,16384,64,4,128,64,16;1,65536,64,4,128,64,16;\
1,32768,64,4,64,64,16"
  ab_save
  tail -10 "$ab_res/fla-random/nsa/compare-summary.txt" 2>/dev/null
fi
ab_el done
