#!/usr/bin/env bash
# Thirty-sixth session, call 1: the thirty-fifth session's two prepared calls in one, on one machine.
#   1. ../../gpu-2026-12-06i/call4/driver.sh (the walk's waits with a suspend-time hint, 1 ms and 20 us, against the
#      landed walk: each build against the fp64 reference, then up to three A/B rounds), its log kept as call4.log;
#   2. memcheck and racecheck of both hinted walks on a case past the sequence's end (what landing one would need);
#   3. ../../gpu-2026-12-06i/call3/driver.sh with one sweep round (landed main's quick verify matrix, the D = 64 walk
#      under auto, the sweep of the walk against the warp order, Nsight Compute of the walk, the scored side by side
#      with fla-core, D = 64 first).
# Carry .gpupack (the thirty-fifth session's: slim pack of 422f1a9, var/fatbins.tar.xz) and .whl.
#   bash docs/results/gpu-2026-12-06j/call1/driver.sh
set -uo pipefail
r=docs/results/gpu-2026-12-06i
CALL_BUDGET=240 bash $r/call4/driver.sh >/dev/null 2>&1
mv "$OUT/driver.log" "$OUT/call4.log"
(
  . bench/gpu/ab-lib.sh
  ab_init psan
  for p in /tmp/ps1 /tmp/ps2; do
    for tool in memcheck racecheck; do
      SAW_NSA_FWD=shared ab_san "$p" d128-tail "$tool" --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
        --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
    done
  done
  ab_save
) >/dev/null 2>&1
mv "$OUT/driver.log" "$OUT/san.log"
CALL_BUDGET=${CALL3_BUDGET:-280} QUICK_MATRIX=1 ROUNDS=1 ROUND_RESERVE=200 FLA_SECONDS=100 bash $r/call3/driver.sh \
  >/dev/null 2>&1
