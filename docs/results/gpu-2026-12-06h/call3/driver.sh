#!/usr/bin/env bash
# Thirty-fourth session, for an H200 (the issues' machine): main a522118's kernels (var/rows.fatbin.xz, whose .text
# equals a522118's sm_90a build) on issue 12's table, issue 14's side by side with fla-core on random and scored
# selections, then the NSA quick verify matrix if time is left.
#   CALL_BUDGET=560 bash docs/results/gpu-2026-12-06h/call3/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init n3
left() { echo $(( ${CALL_BUDGET:-560} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/rows.fatbin.xz > /tmp/main.fatbin
ab_pack /tmp/pm3 /tmp/main.fatbin main-a522118
ab_el "issue 12's table (frontier-table.sh)"
OUT=$ab_res timeout -k 5 150 /tmp/pm3/frontier-table.sh > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
cat "$ab_res/frontier/table.txt" 2>/dev/null || tail -30 "$ab_res/frontier.out"
ab_save
ab_el "issue 14's side by side, random selections"
AB_CHECK_TIMEOUT=230 ab_nsa_fla /tmp/pm3 fla
ab_save
if (( $(left) > 100 )); then
  ab_el "side by side, scored selections"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pm3 fla-scored NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_SECONDS=$(( $(left) - 50 )) NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,32768,64,4,64,64,16"
  ab_save
fi
if (( $(left) > 90 )); then
  ab_el "NSA quick verify matrix"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_check /tmp/pm3 verify NSA_PARTS=verify NSA_VERIFY=quick
  ab_save
fi
ab_el done
