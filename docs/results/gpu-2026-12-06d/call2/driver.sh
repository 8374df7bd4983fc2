#!/usr/bin/env bash
# Call 2 (thirtieth session): call 1 had the staged fp32 dQ adds 1.045x at T = 64K (B = 1 and 2) but 0.95x at D = 64 and
# slower with native adds everywhere. S2 stages only fp32 adds at D = 128 (D = 64 and native add directly, as main) and
# reads each row's dQ offset from a per-step table (one shared load instead of two and a multiply). A = main's kernels
# (-DSAW_NSA_DQ_STAGED=0 of call 1), S2 = this one (call 1's S did not fit the carry beside them). Three rounds of
# fp32 backward timings alternating the order, S2 beside fla-core 0.5.2 at T = 64K, B = 1 and 2 (one run), then S2's full
# NSA verify matrix, memcheck and racecheck in the time left.
#   bash docs/results/gpu-2026-12-06d/call2/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d2
for f in s0 s2; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/s0.fatbin nsa-dq-staged-off
ab_pack /tmp/ps2 /tmp/s2.fatbin nsa-dq-staged-v2
ab_el "timing"
shapes=("1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "4 16384 64 128 5"
        "1 32768 64 64 10" "1 32768 32 128 10" "1 32768 16 128 10")
declare -A pk=([A]=/tmp/pa [S2]=/tmp/ps2)
orders=("A S2" "S2 A" "A S2")
for rd in 1 2 3; do
  for cfg in "${shapes[@]}"; do
    read -r b t hq d reps <<<"$cfg"
    for v in ${orders[$((rd - 1))]}; do ab_nsa_bwd "${pk[$v]}" "$v" "$rd" "$b" "$t" "$hq" "$d" "$reps"; done
  done
done
ab_save
ab_el "S2 beside fla-core 0.5.2"
python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1
OUT=$ab_res/fla PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,65536,64,4,128,64,16;2,65536,64,4,128,64,16" NSA_COMPARE_ORDERS=warp NSA_FAMILIES=wgmma \
  NSA_COMPARE_TIMEOUT=200 timeout -k 5 210 /tmp/ps2/nsa-run.sh > "$ab_res/fla.out" 2>&1
echo "rc=$?"; grep -E "cross-check|^ *[0-9]+ +[0-9]+ " "$ab_res/fla.out" | head -8; tail -12 "$ab_res/fla.out"
ab_save
# S2's checks in the time left (the call's limit is 600 s): the full NSA verify matrix, memcheck and racecheck
left=$(( 575 - ($(date +%s) - ab_t0) ))
ab_el "S2's checks ($left s left)"
(( left > 30 )) || left=30
OUT=$ab_res/check NSA_PARTS="verify sanitizer" NSA_SAN_TOOLS="memcheck racecheck" \
  timeout -k 5 "$left" /tmp/ps2/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL|compute-sanitizer' "$ab_res/verify.out" | head -24
echo "largest relative error per tensor:"
grep -hE "^ *(dQ|dK|dV|O) " "$ab_res/check/nsa/verify.log" 2>/dev/null \
  | awk '{if ($2 + 0 > m[$1] + 0) m[$1] = $2} END {for (k in m) print "  " k, m[k]}'
ab_save
ab_el done
