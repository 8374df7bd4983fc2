#!/usr/bin/env bash
# Thirty-sixth session, call 2: the shared walk made persistent (branch nsa-walk-persistent: at most one CTA per SM
# takes every grid-th tile, the ring's position runs on across tiles so the producer streams the next tile's first
# chunks while the consumers finish this one; producer and consumers load the next walk entry under the current one)
# against the landed walk (main 422f1a9's kernels). In order: the persistent walk against the fp64 reference (past the
# sequence's end at D = 64 and D = 128 with softcap, scored selections with many tiles a CTA, fp16), memcheck and
# racecheck, A/B rounds on the rows where auto runs the walk, the main loop's SASS (the D = 128 entries spill 16 bytes
# here: where), then the quick NSA verify matrix if time is left.
# Carry .gpupack (slim pack of 422f1a9; var/fatbins.tar.xz: landed.fatbin and pers.fatbin, one xz stream;
# var/pers-engine.jar: the branch's engine jar, fatbin emptied, for its persistent launch of the walk).
#   CALL_BUDGET=420 bash docs/results/gpu-2026-12-06j/call2/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pg
left() { echo $(( ${CALL_BUDGET:-420} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
sha256sum /tmp/landed.fatbin /tmp/pers.fatbin .gpupack/var/pers-engine.jar
ab_pack /tmp/pl /tmp/landed.fatbin main-422f1a9
ab_pack /tmp/pp /tmp/pers.fatbin persistent .gpupack/var/pers-engine.jar
ab_el "the persistent walk against the fp64 reference"
SAW_NSA_FWD=shared ab_verify /tmp/pp d64-tail --nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 77 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-scored-many --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 128 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d64-scored-many-fp16 --nsa scored --nsa-block 32 --nsa-s 16 --heads 16 \
  --kv-heads 2 --head-dim 64 --dtype fp16 --seq 6000 --batch 3 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-b128-tail --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 \
  --head-dim 128 --dtype bf16 --seq 3001 --pass fwd,bwd
for tool in memcheck racecheck; do
  SAW_NSA_FWD=shared ab_san /tmp/pp d128-tail "$tool" --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
    --head-dim 128 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
done
ab_save
rows=("fwd scored 1 32768 64 128 10" "fwd scored 1 65536 64 128 10" "fwd scored 4 16384 64 128 10"
  "fwd scored 1 8192 64 128 10" "fwd random 1 32768 64 128 10" "fwd scored 1 32768 64 64 10"
  "fwd random 1 4096 64 64 10")
for rd in 1 2 3; do
  (( $(left) > 110 )) || break
  builds="/tmp/pl:main /tmp/pp:pers"; [[ $rd == 2 ]] && builds="/tmp/pp:pers /tmp/pl:main"
  ab_el "A/B round $rd (auto: the walk on each row)"
  ab_nsa_rounds 1 "$builds" "${rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
ab_sass nsa_fwd_shared_bf16_d128_b64 /tmp/landed.fatbin /tmp/pers.fatbin
grep -c "LDL\|STL" "$ab_res"/sass/*.sass
ab_save
if (( $(left) > 120 )); then
  ab_el "the persistent build's quick verify matrix"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_check /tmp/pp check NSA_PARTS=verify NSA_VERIFY=quick
  ab_save
fi
ab_el done
