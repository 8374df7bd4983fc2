#!/usr/bin/env bash
# Thirty-third session, call 1: the thirty-second session's prepared walk (shared-walk-next.patch in
# ../../gpu-2026-12-06f/next-not-run/, branch nsa-fwd-shared2, build s4), reordered so the answers that matter come
# first and the optional parts run only while the call's 600 s allow:
#   1. the four variants (tiles of 8 / 11 tokens x in-order / skipping consumers) against the fp64 reference;
#   2. one timing round beside the warp order (main);
#   3. the fastest variant on scored T = 32K, if it beats the warp order, beside fla-core on scored selections;
#   4. sanitizers on every variant that passed; 5. a second timing round (the warp order timed last this time);
#   6. issue 14's side by side on random selections (main) if the machine is an H200 and 200 s are left.
# CALL_QUICK=1 (for a call with little device time left): four verify cases, three timing rows, sanitizers on the
# fastest variant only.
#   CALL_BUDGET=575 bash docs/results/gpu-2026-12-06g/call1/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init g1
left() { echo $(( ${CALL_BUDGET:-575} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/s4.fatbin.xz > /tmp/s4.fatbin
ab_pack /tmp/pa /tmp/s4.fatbin main
ab_pack /tmp/ps /tmp/s4.fatbin nsa-fwd-shared2 .gpupack/var/s4-engine.jar
cp bench/gpu/nsa-run.sh /tmp/pa/ && cp bench/gpu/nsa-run.sh /tmp/ps/
variants=("8 0" "11 0" "8 1" "11 1")  # tokens a tile, skip
tag() { echo "w$1$([[ $2 == 1 ]] && echo s)"; }
ab_el "the walk's four variants against the fp64 reference"
cases=("--nsa random --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 2048"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30"
       "--nsa random --nsa-block 32 --nsa-s 32 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --seq 1000"
       "--nsa random --nsa-block 128 --nsa-s 8 --heads 4 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 1500"
       "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096"
       "--nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 --batch 2"
       "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 1 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 3000"
       "and(causal,docs(700,900,400)) --nsa mask --seq 2000 --block 64x64 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16")
if [[ ${CALL_QUICK:-0} == 1 ]]; then  # a short call: four of the nine cases, three timing rows, one sanitized variant
  cases=("${cases[1]}" "${cases[2]}" "${cases[4]}" "${cases[5]}")
fi
ok=()
for v in "${variants[@]}"; do
  read -r tokens skip <<<"$v"
  good=1
  for i in "${!cases[@]}"; do
    # shellcheck disable=SC2086
    SAW_NSA_SHARED_TOKENS=$tokens SAW_NSA_SHARED_SKIP=$skip SAW_NSA_FWD=shared \
      ab_verify /tmp/ps "$(tag $tokens $skip)-$i" --pass fwd,bwd ${cases[i]}; rc=$?
    if (( rc != 0 )); then echo "$(tag $tokens $skip) failed (rc $rc): not timed"; good=0; break; fi
  done
  (( good )) && ok+=("$v")
done
ab_save
rows=("scored 1 32768 64 128 10" "random 1 32768 64 128 10" "scored 1 65536 64 128 5" "scored 1 32768 32 128 10"
      "scored 1 32768 64 64 10")
[[ ${CALL_QUICK:-0} == 1 ]] && rows=("scored 1 32768 64 128 10" "random 1 32768 64 128 10" "scored 1 32768 64 64 10")
ms() { grep -o '"median_ms":[0-9.]*' "$ab_res/ab/$1-fwd-scored-b1-t32768-hq64-d128-r1.jsonl" 2>/dev/null | head -1 | cut -d: -f2; }
time_round() { # ROUND: the warp order first in round 1, last in round 2
  local rd=$1 row v tokens skip
  for row in "${rows[@]}"; do
    # shellcheck disable=SC2086
    (( rd == 1 )) && SAW_NSA_FWD=warp ab_nsa_time /tmp/pa warp $rd fwd $row
    for v in "${ok[@]}"; do
      read -r tokens skip <<<"$v"
      # shellcheck disable=SC2086
      SAW_NSA_SHARED_TOKENS=$tokens SAW_NSA_SHARED_SKIP=$skip SAW_NSA_FWD=shared \
        ab_nsa_time /tmp/ps "$(tag $tokens $skip)" $rd fwd $row
    done
    # shellcheck disable=SC2086
    (( rd == 2 )) && SAW_NSA_FWD=warp ab_nsa_time /tmp/pa warp $rd fwd $row
  done
  ab_save
}
if (( ${#ok[@]} )); then
  ab_el "timing round 1: warp (main) against every variant that passed"
  time_round 1
  best=""; best_ms=$(ms warp); warp_ms=$best_ms
  for v in "${ok[@]}"; do
    t=$(ms "$(tag $v)")
    [[ -n $t && -n $best_ms ]] && awk -v a="$t" -v b="$best_ms" 'BEGIN {exit !(a < b)}' && { best=$v; best_ms=$t; }
  done
  echo "scored T=32K: warp $warp_ms ms, fastest variant '${best:-none}' $best_ms ms"
  if [[ -n $best ]] && awk -v a="$best_ms" -v b="$warp_ms" 'BEGIN {exit !(a < 0.9 * b)}' && (( $(left) > 90 )); then
    read -r tokens skip <<<"$best"
    ab_el "side by side with fla, scored selections: warp and the walk $(tag $best)"
    AB_CHECK_TIMEOUT=150 ab_nsa_fla /tmp/ps fla-scored NSA_COMPARE_SELECTION=scored NSA_COMPARE_ORDERS="warp shared" \
      SAW_NSA_SHARED_TOKENS=$tokens SAW_NSA_SHARED_SKIP=$skip NSA_COMPARE_SECONDS=100 NSA_COMPARE_TIMEOUT=140 \
      NSA_SHAPES=list NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,32768,64,4,64,64,16"
    ab_save
  fi
  ab_el "sanitizers on every variant that passed"
  sanitized=("${ok[@]}"); [[ ${CALL_QUICK:-0} == 1 ]] && sanitized=("${best:-${ok[0]}}")
  for v in "${sanitized[@]}"; do
    read -r tokens skip <<<"$v"
    for tool in memcheck racecheck synccheck; do
      (( $(left) > 30 )) || break 2
      SAW_NSA_SHARED_TOKENS=$tokens SAW_NSA_SHARED_SKIP=$skip SAW_NSA_FWD=shared ab_san /tmp/ps "$(tag $tokens $skip)" \
        "$tool" --pass fwd --nsa random --seq 300 --dtype bf16 --nsa-block 64 --nsa-s 6 --heads 16 --kv-heads 2 \
        --head-dim 128 --softcap 20
    done
  done
  ab_save
  if (( $(left) > 100 )); then ab_el "timing round 2"; time_round 2; fi
fi
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && (( $(left) > 200 )); then
  ab_el "side by side with fla, random selections (main)"
  ab_nsa_fla /tmp/pa fla
  ab_save
fi
ab_el done
