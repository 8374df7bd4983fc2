#!/usr/bin/env bash
# Call 1 (thirtieth session): the NSA warpgroup backward's dQ adds staged through shared memory (branch nsa-dq-staged).
# The twenty-ninth session's profile had the SMs' crossbar into L2 85% busy, mostly with the fp32 dQ adds, each warp's
# 16-byte vector add covering eight rows' 64-byte halves of a line. S writes each warp's 16 rows of a dQ half to 4 KB of
# shared memory the step no longer reads (the dO stage, dS^T) and reads them back a row per half-warp, so each add of a
# warp covers two rows' whole 256 bytes (fp32) or 128 bytes (native). A = the same source with -DSAW_NSA_DQ_STAGED=0
# (main's kernels). Checks on S: the full NSA verify matrix (fp32 default), the quick one with native adds, memcheck and
# racecheck on the sanitizer cases; then two rounds of backward timings, fp32 and native, A and S alternating.
#   bash docs/results/gpu-2026-12-06d/call1/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d1
for f in s0 s1; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/s0.fatbin nsa-dq-staged-off
ab_pack /tmp/ps /tmp/s1.fatbin nsa-dq-staged
ab_el "S's checks (fp32)"
OUT=$ab_res/check NSA_PARTS="verify sanitizer" NSA_SAN_TOOLS="memcheck racecheck" \
  timeout -k 5 230 /tmp/ps/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL|compute-sanitizer|RACECHECK|ERROR SUMMARY' "$ab_res/verify.out" | head -24
ab_el "S's checks (native)"
OUT=$ab_res/check-native SAW_NSA_DQ_ACCUM=native NSA_PARTS="verify" NSA_VERIFY=quick \
  timeout -k 5 120 /tmp/ps/nsa-run.sh > "$ab_res/verify-native.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify-native.out" | head -10
for d in check check-native; do
  echo "largest relative error per tensor, $d:"
  grep -hE "^ *(dQ|dK|dV|O) " "$ab_res/$d/nsa/verify.log" 2>/dev/null \
    | awk '{if ($2 + 0 > m[$1] + 0) m[$1] = $2} END {for (k in m) print "  " k, m[k]}'
done
ab_save
ab_el "timing"
shapes1=("1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "4 16384 64 128 5"
         "1 32768 64 64 10" "1 32768 32 128 10" "1 32768 16 128 10")
shapes2=("1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "1 32768 64 64 10")
for cfg in "${shapes1[@]}"; do
  read -r b t hq d reps <<<"$cfg"
  ab_nsa_bwd /tmp/pa A 1 "$b" "$t" "$hq" "$d" "$reps"
  ab_nsa_bwd /tmp/ps S 1 "$b" "$t" "$hq" "$d" "$reps"
  SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/pa An 1 "$b" "$t" "$hq" "$d" "$reps"
  SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/ps Sn 1 "$b" "$t" "$hq" "$d" "$reps"
done
for cfg in "${shapes2[@]}"; do
  read -r b t hq d reps <<<"$cfg"
  SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/ps Sn 2 "$b" "$t" "$hq" "$d" "$reps"
  SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/pa An 2 "$b" "$t" "$hq" "$d" "$reps"
  ab_nsa_bwd /tmp/ps S 2 "$b" "$t" "$hq" "$d" "$reps"
  ab_nsa_bwd /tmp/pa A 2 "$b" "$t" "$hq" "$d" "$reps"
done
ab_save
ab_el done
