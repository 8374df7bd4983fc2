#!/usr/bin/env bash
# Thirty-fifth session, call 4 (prepared after call 3 could not start): the walk's waits with try_wait's suspend-time
# hint (branch nsa-walk-sleep: a waiting warp may sleep up to the hint and wakes when the phase completes, instead of
# spinning on the issue slots the other consumers need; the D = 64 profile put 28% of the walk's instructions in that
# spin) against the landed main 422f1a9, hints of 1 ms and 20 us. In order: each build's walk against the fp64
# reference (D = 64 past the sequence's end, D = 128 past the end with softcap, a scored one), then A/B rounds on the
# rows where auto runs the walk and on a forced one, then, if time is left, call 3's D = 64 sweep.
# Carry .gpupack (slim pack of 422f1a9; var/fatbins.tar.xz: landed, sleep1ms and sleep20us fatbins, one xz stream).
#   CALL_BUDGET=240 bash docs/results/gpu-2026-12-06i/call4/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pd
left() { echo $(( ${CALL_BUDGET:-240} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
sha256sum /tmp/landed.fatbin /tmp/sleep1ms.fatbin /tmp/sleep20us.fatbin
ab_pack /tmp/pl /tmp/landed.fatbin main-422f1a9
ab_pack /tmp/ps1 /tmp/sleep1ms.fatbin sleep-1ms
ab_pack /tmp/ps2 /tmp/sleep20us.fatbin sleep-20us
ab_el "the hinted walks against the fp64 reference"
for p in /tmp/ps1 /tmp/ps2; do
  SAW_NSA_FWD=shared ab_verify "$p" d64-tail --nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 77 --batch 2 --pass fwd
  SAW_NSA_FWD=shared ab_verify "$p" d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
    --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
  SAW_NSA_FWD=shared ab_verify "$p" d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 \
    --head-dim 128 --dtype bf16 --seq 4096 --pass fwd
done
ab_save
rows=("fwd scored 1 32768 64 128 10" "fwd scored 1 65536 64 128 10" "fwd random 1 32768 64 128 10"
  "fwd scored 1 32768 64 64 10" "fwd scored 1 8192 64 128 10")
for rd in 1 2 3; do
  (( $(left) > 70 )) || break
  builds="/tmp/pl:main /tmp/ps1:s1ms /tmp/ps2:s20us"; [[ $rd == 2 ]] && builds="/tmp/ps2:s20us /tmp/ps1:s1ms /tmp/pl:main"
  ab_el "A/B round $rd (auto: the walk on each row under the landed rule)"
  ab_nsa_rounds 1 "$builds" "${rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
ab_el done
