#!/usr/bin/env bash
# Thirty-fourth session, the call after next.sh on the same machine: issue 12's table (frontier-table.sh: saw's
# default Hopper kernels and cuDNN SDPA in one call), then issue 14's side by side on scored selections if next.sh ran
# out of time before it. Main's kernels (var/main.fatbin.xz, sha256 b9e3499a...).
#   SCORED=0 CALL_BUDGET=420 bash docs/results/gpu-2026-12-06h/call2/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init n2
left() { echo $(( ${CALL_BUDGET:-570} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/main.fatbin.xz > /tmp/main.fatbin
ab_pack /tmp/pm2 /tmp/main.fatbin main
xz -dc .gpupack/var/rows.fatbin.xz > /tmp/rows.fatbin
ab_pack /tmp/pr2 /tmp/rows.fatbin rows-helpers
ab_el "A/B: main against rows-helpers at D = 64 (the rows next.sh left within 1%), three rounds"
ab_nsa_rounds 3 "/tmp/pm2:main /tmp/pr2:rows" "fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 64 10"
ab_el "issue 12's table (frontier-table.sh)"
OUT=$ab_res timeout -k 5 $(( $(left) - 60 )) /tmp/pm2/frontier-table.sh > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
cat "$ab_res/frontier/table.txt" 2>/dev/null || tail -30 "$ab_res/frontier.out"
ab_save
if [[ ${SCORED:-1} == 1 ]] && (( $(left) > 120 )); then
  ab_el "issue 14's side by side, scored selections (main)"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pm2 fla-scored NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_SECONDS=$(( $(left) - 50 )) NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,32768,64,4,64,64,16"
  ab_save
fi
ab_el done
