#!/usr/bin/env bash
# Prepared in the thirty-fourth session, not run (no device time left). One call, in order of what matters:
#   1. producer-copies.patch (the shared walk's producer: one instruction a copy) against the fp64 reference (nsa-run.sh's
#      quick verify matrix, whose B = 2 T = 77 case takes the tail chunk's predicated copies) and memcheck / racecheck;
#   2. two A/B rounds, main against the patch, on rows where auto runs the walk, and with the walk forced on rows where
#      auto does not take it today (D = 64, random selections): these decide whether the rule moves;
#   3. issue 14's side by side with fla on scored then random selections with the patch (orders warp, block, shared).
# Carry: .gpupack = slim pack of main (engine jar's fatbin emptied; the host code is main's from f92544c on) with
# var/rows.fatbin.xz (main a522118's sm_90a kernels, sha256 0ff6a5b3...) and var/prod.fatbin.xz (the patch on main,
# sm_90a, sha256 deea1f9f... in ../fatbins.sha256); .whl = fla-core 0.5.2 and einops 0.8.2.
#   CALL_BUDGET=575 bash docs/results/gpu-2026-12-06h/next-not-run/next.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init p1
left() { echo $(( ${CALL_BUDGET:-575} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/rows.fatbin.xz > /tmp/main.fatbin
xz -dc .gpupack/var/prod.fatbin.xz > /tmp/prod.fatbin
ab_pack /tmp/pm /tmp/main.fatbin main
ab_pack /tmp/pp /tmp/prod.fatbin producer
ab_el "producer: quick verify matrix, memcheck and racecheck"
AB_CHECK_TIMEOUT=200 ab_nsa_check /tmp/pp prod NSA_PARTS="verify sanitizer" NSA_VERIFY=quick \
  NSA_SAN_TOOLS="memcheck racecheck"
ab_save
auto_rows=("fwd scored 1 32768 64 128 10" "fwd scored 1 65536 64 128 10" "fwd scored 4 16384 64 128 10"
  "fwd scored 1 8192 64 128 10" "fwd random 1 8192 64 128 10")
walk_rows=("fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 64 10" "fwd random 1 32768 64 128 10"
  "fwd random 1 16384 64 128 10" "fwd random 1 65536 64 128 10")
warp_rows=("fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 64 10" "fwd random 1 65536 64 128 10")
for rd in 1 2; do
  builds="/tmp/pm:main /tmp/pp:prod"; [[ $rd == 2 ]] && builds="/tmp/pp:prod /tmp/pm:main"
  ab_el "A/B round $rd: auto rows, the walk forced, and the warp order on the same rows for the rule"
  ab_nsa_rounds 1 "$builds" "${auto_rows[@]}"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$builds" "${walk_rows[@]}"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/pm:main" "${warp_rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
if (( $(left) > 120 )); then
  ab_el "side by side, scored selections (the patch)"
  AB_CHECK_TIMEOUT=$(( $(left) > 130 ? 120 : $(left) - 10 )) ab_nsa_fla /tmp/pp fla-scored NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_SECONDS=90 NSA_COMPARE_TIMEOUT=110 NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,32768,64,4,64,64,16"
  ab_save
fi
if (( $(left) > 200 )); then
  ab_el "issue 14's side by side, random selections (the patch)"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pp fla NSA_COMPARE_SECONDS=$(( $(left) - 50 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 ))
  ab_save
fi
ab_el done
