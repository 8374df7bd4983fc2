#!/usr/bin/env bash
# Call 8 (twenty-ninth session): the full NSA verify matrix (34 cases: blocks 32/64/128, S 1-32, G 1-48, D 64/128,
# bf16/fp16, softcap, random, scored and mask selections) with SAW_NSA_DQ_ACCUM=native on branch nsa-dq-native.
#   bash docs/results/gpu-2026-12-06c/call8/driver.sh > /dev/null 2>&1; tail -c 5000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d8
xz -dc .gpupack/var/n1.fatbin.xz > /tmp/n1.fatbin
ab_pack /tmp/pn /tmp/n1.fatbin nsa-dq-native
OUT=$ab_res/check SAW_NSA_DQ_ACCUM=native NSA_PARTS=verify timeout -k 5 165 /tmp/pn/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify.out" | head -20
echo "largest relative error per tensor, bf16 cases / fp16 cases:"
for t in bf16 fp16; do
  grep -A8 -- "--dtype $t" "$ab_res"/check/nsa/verify.log | grep -hE "^ *(dQ|dK|dV|O) " \
    | awk -v t=$t '{if ($2 + 0 > m[$1] + 0) m[$1] = $2} END {for (k in m) printf "%s %s %s  ", t, k, m[k]; print ""}'
done
ab_save
ab_el done
