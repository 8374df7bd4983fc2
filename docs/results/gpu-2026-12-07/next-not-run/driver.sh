#!/usr/bin/env bash
# Prepared in the thirty-eighth session, not run (no device time left): where the D = 64 walk's time goes, the next
# step for issue 14's D = 64 forward (scored 1.69-1.82x fla against the 2x target). Nsight Compute's full set on one
# launch of the walk at D = 64 (scored 32K, 190 TFLOP/s) and, for comparison, at D = 128 (scored 64K, 2.04x fla, 204
# TFLOP/s), both with 64-key chunks; then both rows timed once more. Any main from 3447536 on; carry its pack:
#   SAW_PACK_SLIM=1 bash bench/gpu-pack.sh .gpupack        (the engine jar keeps its full fatbin: about 45 MB)
#   CALL_BUDGET=240 bash docs/results/gpu-2026-12-07/next-not-run/driver.sh > /dev/null 2>&1; tail -c 6000 $OUT/driver.log
# Read: prof-walk-d64-source.csv.gz (stall samples per SASS line: the chunk loop is the one branching back past its
# HMMAs), prof-walk-d64-details.txt.gz (tensor pipe, issue slots, L2 / shared throughput) against the D = 128 pair.
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init prof64
left() { echo $(( ${CALL_BUDGET:-240} - ($(date +%s) - ab_t0) )); }
sel=(--nsa scored --heads 64 --kv-heads 4 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --reps 1 --warmup 2
  --pass fwd)
ab_prof .gpupack walk-d64 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- "${sel[@]}" --seq 32768 --head-dim 64 \
  --out /tmp/p-64.jsonl
ab_save
if (( $(left) > 90 )); then
  ab_prof .gpupack walk-d128 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- "${sel[@]}" --seq 65536 --head-dim 128 \
    --out /tmp/p-128.jsonl
  ab_save
fi
if (( $(left) > 40 )); then
  ab_nsa_rounds 1 ".gpupack:main" "fwd scored 1 32768 64 64 10" "fwd scored 1 65536 64 128 10"
  ab_save
fi
ab_el done
