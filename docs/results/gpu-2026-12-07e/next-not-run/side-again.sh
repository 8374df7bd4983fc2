#!/usr/bin/env bash
# Prepared in the forty-second session, not run (its device time was spent): issue 14's side by side again on the
# landed kernels (walkvote.fatbin) with the engine jar of main 27dd8d1 or later (the fill before every timed row),
# scored D = 64 and 128 in reverse order, then the random selections that call 3 could not run.
# Carry .gpupack (a slim pack of main, its engine jar's fatbin emptied: put that jar at var/engine.jar) with
# var/walk.tar.xz, and .whl:
#   CALL_BUDGET=300 bash docs/results/gpu-2026-12-07e/next-not-run/side-again.sh > /dev/null 2>&1
#   tail -c 8000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init again
left() { echo $(( ${CALL_BUDGET:-300} - ($(date +%s) - ab_t0) )); }
[[ -f /tmp/walkvote.fatbin ]] || xz -dc .gpupack/var/walk.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin .gpupack/var/engine.jar
ab_pack /tmp/pw /tmp/walkvote.fatbin walkvote "$ab_root/.gpupack/var/engine.jar"
ab_el "issue 14: scored side by side, second run"
AB_CHECK_TIMEOUT=170 ab_nsa_fla /tmp/pw fla-scored NSA_COMPARE_SELECTION=scored NSA_COMPARE_ORDERS="shared" \
  NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=135 NSA_COMPARE_TIMEOUT=165 NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,8192,64,4,64,64,16;4,16384,64,4,64,64,16;1,32768,64,4,64,64,16;1,65536,64,4,64,64,16;\
1,8192,64,4,128,64,16;4,16384,64,4,128,64,16;1,32768,64,4,128,64,16;1,65536,64,4,128,64,16"
ab_save
if (( $(left) > 70 )); then
  ab_el "issue 14: random side by side, second run"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pw fla-random NSA_COMPARE_SELECTION=random \
    NSA_COMPARE_ORDERS="warp shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 45 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,64,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,32768,64,4,128,64,16;\
1,8192,64,4,128,64,16"
  ab_save
fi
for f in fla-scored fla-random; do tail -14 "$ab_res/$f/nsa/compare-summary.txt" 2>/dev/null; done
ab_el done
