#!/usr/bin/env bash
# Prepared in the forty-first session, not run: the causal mask of a chunk off the common path. The profile of the
# D = 64 walk (call 1, scored 32K) counted 442 instructions a warp a chunk, about 80 of them the mask's compares and
# selects, executed under a predicate on every chunk although only the chunk holding the token masks anything.
#   vote64 (branch nsa-rows-mask-vote64): at D = 64 a branch on a vote of "this chunk holds the token"; D = 128's
#          code is main's (.text equal in every D = 128 function); ptxas D = 64 walk 163 / 149 / 168 registers
#          (blocks 64 / 32 / 128; main 166 / 142 / 168), the warp order 96 (main 114), no spill.
#   split  (branch nsa-rows-mask-split): two copies of the chunk body, the caller branching, at every D; D = 128
#          walk spills 100 / 36 / 152 bytes (main 44 / 16 / 148).
#   keep64 (branch nsa-walk-keep64, on vote64): the walk keeps each row's max at D = 64 too (a 64-key chunk's O
#          rescale is 32 multiplies a lane, skipped when no row of the warp grew; the 16-key warp order lost 5% with
#          it); D = 64 walk 168 / 153 / 167 registers, no spill; only the six D = 64 walk functions differ from vote64.
# Prediction: 1.05-1.12x on the D = 64 walk and warp order if the SASS shows the selects gone from the hot path; level
# at D = 128 for vote64; split at D = 128 slower by its spills; keep64 another 1.02-1.06x over vote64 on the D = 64
# walk (32 of about 360 instructions a chunk).
# fp64 checks and memcheck first, SASS of the D = 64 walk's main loop (FSEL and ISETP counts), then two A/B rounds.
# Carry .gpupack and .whl as driver.sh here:
#   CALL_BUDGET=480 bash docs/results/gpu-2026-12-07d/next-not-run/mask-driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init mask
left() { echo $(( ${CALL_BUDGET:-480} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp
sha256sum /tmp/skip.fatbin /tmp/vote64.fatbin /tmp/split.fatbin /tmp/keep64.fatbin
ab_pack /tmp/pm /tmp/skip.fatbin main-b5e4cd1
ab_pack /tmp/pv /tmp/vote64.fatbin vote64
ab_pack /tmp/pp /tmp/split.fatbin split
ab_pack /tmp/pk /tmp/keep64.fatbin keep64
ab_el "against the fp64 reference"
for p in /tmp/pv /tmp/pp /tmp/pk; do
  SAW_NSA_FWD=shared ab_verify $p d64-tail --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 77 --batch 2 --pass fwd
  SAW_NSA_FWD=shared ab_verify $p d64-b128-softcap --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 \
    --head-dim 64 --dtype bf16 --seq 1001 --softcap 30 --pass fwd
  SAW_NSA_FWD=shared ab_verify $p d64-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 3000 --pass fwd
  SAW_NSA_FWD=warp ab_verify $p warp-d64-softcap --nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 2048 --softcap 30 --pass fwd
done
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 128 --dtype bf16 --seq 8192 --pass fwd
SAW_NSA_FWD=shared ab_san /tmp/pv d64 memcheck --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
ab_sass nsa_fwd_shared_bf16_d64_b64 /tmp/skip.fatbin /tmp/vote64.fatbin /tmp/split.fatbin /tmp/keep64.fatbin
ab_save
walk=("fwd scored 1 8192 64 64 20" "fwd scored 1 32768 64 64 10" "fwd scored 4 16384 64 64 10"
  "fwd random 1 32768 64 64 10" "fwd scored 1 32768 64 128 10")
warp=("fwd random 1 32768 64 64 10")
for r in 1 2; do
  (( $(left) > 90 )) || break
  ab_el "A/B round $r"
  builds="/tmp/pm:main /tmp/pv:vote64 /tmp/pp:split /tmp/pk:keep64"
  (( r == 2 )) && builds="/tmp/pk:keep64 /tmp/pp:split /tmp/pv:vote64 /tmp/pm:main"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$builds" "${walk[@]}"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "$builds" "${warp[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$r"; mkdir -p "$ab_res/ab"; ab_save
done
ab_el done
