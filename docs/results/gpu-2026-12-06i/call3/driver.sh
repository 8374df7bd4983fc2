#!/usr/bin/env bash
# Thirty-fifth session, call 3: the landed walk (bulk tensor copies; main at the commit named in ../README.md) after
# calls 1 and 2 measured it as branch nsa-walk-tma. In order of what matters:
#   1. the landed pack's quick NSA verify matrix against the fp64 reference (host code changed since call 1: auto's
#      rule per head dim, the walk's device signature), and the D = 64 walk under auto on a scored selection;
#   2. the rule at D = 64: the walk forced against the warp order on selections whose sharing lies between call 1's
#      two D = 64 points (1.57: 0.66x, 3.55: 1.05x), two rounds; D = 128 beside them at random 48K and 24K (sharing
#      about 1.45 and 1.75, either side of the crossing set at 1.5);
#   3. Nsight Compute of the walk at D = 128 (scored 32K), the next step's profile;
#   4. issue 14's side by side with fla-core on scored selections, D = 64 first (call 2 ran out of time there);
#   5. the random side by side again if time is left.
# Carry .gpupack (slim pack of the landed main, engine jar's fatbin emptied, var/fatbins.tar.xz with landed.fatbin)
# and .whl.
#   CALL_BUDGET=540 bash docs/results/gpu-2026-12-06i/call3/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
# With less device time: QUICK_MATRIX=0 (only the D = 64 auto case), ROUNDS=1 ROUND_RESERVE=200, FLA_SECONDS=70.
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pc
left() { echo $(( ${CALL_BUDGET:-540} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp landed.fatbin && sha256sum /tmp/landed.fatbin
ab_pack /tmp/pl /tmp/landed.fatbin main-422f1a9
ab_el "landed: quick verify matrix; the D = 64 walk under auto"
if [[ ${QUICK_MATRIX:-1} == 1 ]]; then
  AB_CHECK_TIMEOUT=150 ab_nsa_check /tmp/pl check NSA_PARTS=verify NSA_VERIFY=quick
fi
ab_verify /tmp/pl d64-scored-auto --nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 64 \
  --dtype bf16 --seq 4096 --pass fwd,bwd
ab_nsa_time /tmp/pl auto 1 fwd scored 1 8192 64 64 3   # which kernel auto runs at D = 64 (sharing 5.2: the walk)
ab_save
sweep=("fwd random 1 8192 64 64 10" "fwd random 1 16384 64 64 10" "fwd scored 1 65536 64 64 10"
  "fwd scored 4 16384 64 64 10" "fwd scored 1 8192 64 64 10" "fwd random 1 4096 64 64 10"
  "fwd random 1 24576 64 128 10" "fwd random 1 49152 64 128 10")
for ((rd = 1; rd <= ${ROUNDS:-2}; rd++)); do
  (( $(left) > ${ROUND_RESERVE:-300} )) || break
  ab_el "the rule, round $rd: the walk forced and the warp order on the same rows"
  for row in "${sweep[@]}"; do  # each row's walk and warp order back to back, so that a cut call keeps pairs
    SAW_NSA_FWD=shared ab_nsa_rounds 1 "/tmp/pl:walk" "$row"
    SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/pl:warp" "$row"
  done
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
for f in "$ab_res"/ab-1/walk-*.jsonl; do
  echo "$(basename "$f") $(grep -o '"walk_sharing":[0-9.]*' "$f" | head -1)"
done
if (( $(left) > 90 )); then
  ab_prof /tmp/pl walk-d128 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- --nsa scored --seq 32768 --heads 64 --kv-heads 4 \
    --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --reps 1 --warmup 2 --pass fwd \
    --out /tmp/p-128.jsonl
  ab_save
fi
if (( $(left) > 80 )); then
  ab_el "side by side, scored selections (landed), D = 64 first"
  fla_s=${FLA_SECONDS:-140}
  AB_CHECK_TIMEOUT=$((fla_s + 30)) ab_nsa_fla /tmp/pl fla-scored NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_SECONDS="$fla_s" NSA_COMPARE_TIMEOUT=$((fla_s + 20)) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,64,64,16;1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16"
  ab_save
fi
if (( $(left) > 150 )); then
  ab_el "side by side, random selections (landed)"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pl fla NSA_COMPARE_SECONDS=$(( $(left) - 50 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 ))
  ab_save
fi
ab_el done
