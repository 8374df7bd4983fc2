#!/usr/bin/env bash
# Prepared in the thirty-third session, not run (no device time left). One call, in order of what matters:
#   1. rows-helpers.patch (one copy of the per-token rows' code for the warp order and the walk) against the fp64
#      reference (nsa-run.sh's quick verify matrix, every order) and memcheck / racecheck;
#   2. two A/B rounds, main against rows-helpers, on rows where auto runs the walk (scored) and the warp order (random),
#      D = 128 and 64: land the patch only if no row is slower;
#   3. issue 14's side by side with fla on random selections (main, orders warp, block and shared; auto labelled by
#      saw bench's walk_sharing), the table on whatever machine came (an H200 is the issue's);
#   4. the same on scored selections, if the call's time allows.
# Carry: .gpupack = slim pack of main afec511 (engine jar's fatbin emptied) with var/main.fatbin.xz (sm_90a build of
# c245213's kernels, sha256 b9e3499a... in ../fatbins.sha256; the kernels did not change after it) and
# var/rows.fatbin.xz (the same with rows-helpers.patch applied); .whl = fla-core 0.5.2 and einops 0.8.2.
#   CALL_BUDGET=575 bash docs/results/gpu-2026-12-06g/next-not-run/next.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init n1
left() { echo $(( ${CALL_BUDGET:-575} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/main.fatbin.xz > /tmp/main.fatbin
xz -dc .gpupack/var/rows.fatbin.xz > /tmp/rows.fatbin
ab_pack /tmp/pm /tmp/main.fatbin main
ab_pack /tmp/pr /tmp/rows.fatbin rows-helpers
ab_el "rows-helpers: quick verify matrix and sanitizers"
AB_CHECK_TIMEOUT=200 ab_nsa_check /tmp/pr rows NSA_PARTS="verify sanitizer" NSA_VERIFY=quick \
  NSA_SAN_TOOLS="memcheck racecheck"
ab_save
ab_el "A/B: main against rows-helpers, two rounds (auto: the walk on scored rows, the warp order on random ones)"
ab_nsa_rounds 2 "/tmp/pm:main /tmp/pr:rows" "fwd scored 1 32768 64 128 10" "fwd random 1 32768 64 128 10" \
  "fwd scored 1 8192 64 128 10" "fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 64 10"
if (( $(left) > 200 )); then
  ab_el "issue 14's side by side, random selections (main)"
  ab_nsa_fla /tmp/pm fla
  ab_save
fi
if (( $(left) > 100 )); then
  ab_el "side by side, scored selections (main)"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pm fla-scored NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_SECONDS=$(( $(left) - 50 )) NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,32768,64,4,64,64,16"
  ab_save
fi
ab_el done
