#!/usr/bin/env bash
# Prepared in the thirty-sixth session, not run (no device time left): three builds of the shared walk against main's
# (the persistent walk): two for D = 64, where issue 14's scored rows stand at 1.30-1.42x fla against the 2x target,
# and one deeper ring for D = 128, where the scored 64K row stands at 1.96x.
#   ring64  (branch nsa-walk-ring64): the ring by bytes, 24 slots of 32 keys at D = 64 instead of 12, so the
#           consumers may drift twice as far apart (D = 128 unchanged: 12 slots);
#   keys64  (branch nsa-walk-keys64, on top of ring64): chunks of 64 keys at D = 64 with blocks of 64 or more (12
#           slots), halving the per-chunk fixed costs (waits, row reductions, loop); 167 registers, no spills;
#   ring13  (branch nsa-walk-ring13, on top of ring64): the ring at 13 slots of D = 128 chunks (26 at D = 64), 208 KiB.
# ring64 and keys64 differ from main's build in D = 64 walk entries only (6 and 4 functions), ring13 in all 12. In
# order: ring13's D = 128 walk and each build's D = 64 walk against the fp64 reference, memcheck / racecheck, three
# A/B rounds on D = 64 rows (all four builds) and D = 128 rows (main and ring13), then keys64's quick verify matrix and
# the scored D = 64 side by side with fla-core if time is left.
# Carry .gpupack (slim pack of main 8c87593 + var/fatbins.tar.xz: main, ring64, keys64 and ring13 fatbins; and
# var/ring64-engine.jar, var/keys64-engine.jar, var/ring13-engine.jar, fatbins emptied) and .whl.
#   CALL_BUDGET=590 bash docs/results/gpu-2026-12-06j/next-not-run/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pn
left() { echo $(( ${CALL_BUDGET:-590} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
sha256sum /tmp/main.fatbin /tmp/ring64.fatbin /tmp/keys64.fatbin /tmp/ring13.fatbin .gpupack/var/*-engine.jar
ab_pack /tmp/pm /tmp/main.fatbin main-8c87593
ab_pack /tmp/pr /tmp/ring64.fatbin ring64 .gpupack/var/ring64-engine.jar
ab_pack /tmp/pk /tmp/keys64.fatbin keys64 .gpupack/var/keys64-engine.jar
ab_pack /tmp/p13 /tmp/ring13.fatbin ring13 .gpupack/var/ring13-engine.jar
ab_el "ring13 at D = 128 against the fp64 reference"
SAW_NSA_FWD=shared ab_verify /tmp/p13 d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/p13 d128-scored-many --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 \
  --kv-heads 4 --head-dim 128 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_san /tmp/p13 d128 racecheck --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 128 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
ab_el "the D = 64 walks against the fp64 reference"
for p in /tmp/pr /tmp/pk /tmp/p13; do
  SAW_NSA_FWD=shared ab_verify "$p" d64-b64-tail --nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 77 --batch 2 --pass fwd
  SAW_NSA_FWD=shared ab_verify "$p" d64-b128-tail-softcap --nsa random --nsa-block 128 --nsa-s 6 --heads 16 \
    --kv-heads 2 --head-dim 64 --dtype bf16 --seq 1001 --softcap 30 --pass fwd
  SAW_NSA_FWD=shared ab_verify "$p" d64-b64-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
    --head-dim 64 --dtype bf16 --seq 8192 --batch 2 --pass fwd
  SAW_NSA_FWD=shared ab_verify "$p" d64-b32 --nsa random --nsa-block 32 --nsa-s 16 --heads 16 --kv-heads 1 \
    --head-dim 64 --dtype fp16 --seq 3000 --pass fwd
  for tool in memcheck racecheck; do
    SAW_NSA_FWD=shared ab_san "$p" d64-b64 "$tool" --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
      --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
  done
done
ab_save
rows=("fwd scored 1 32768 64 64 10" "fwd scored 1 8192 64 64 10" "fwd scored 4 16384 64 64 10"
  "fwd scored 1 65536 64 64 10")
rows128=("fwd scored 1 65536 64 128 10" "fwd scored 1 32768 64 128 10" "fwd scored 4 16384 64 128 10"
  "fwd random 1 32768 64 128 10")
for rd in 1 2 3; do
  (( $(left) > 200 )) || break
  builds="/tmp/pm:main /tmp/pr:ring64 /tmp/pk:keys64 /tmp/p13:ring13"
  [[ $rd == 2 ]] && builds="/tmp/p13:ring13 /tmp/pk:keys64 /tmp/pr:ring64 /tmp/pm:main"
  [[ $rd == 3 ]] && builds="/tmp/pr:ring64 /tmp/p13:ring13 /tmp/pk:keys64 /tmp/pm:main"
  ab_el "A/B round $rd (auto: the walk on each row)"
  ab_nsa_rounds 1 "$builds" "${rows[@]}"
  b128="/tmp/pm:main /tmp/p13:ring13"; [[ $rd == 2 ]] && b128="/tmp/p13:ring13 /tmp/pm:main"
  ab_nsa_rounds 1 "$b128" "${rows128[@]}"
  for b in "/tmp/pm:main" "/tmp/pr:ring64" "/tmp/pk:keys64"; do  # the walk forced where auto runs the warp order
    SAW_NSA_FWD=shared ab_nsa_rounds 1 "$b" "fwd random 1 8192 64 64 10" "fwd random 1 32768 64 64 10"
  done
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
if (( $(left) > 130 )); then
  ab_el "keys64: quick verify matrix"
  AB_CHECK_TIMEOUT=120 ab_nsa_check /tmp/pk check NSA_PARTS=verify NSA_VERIFY=quick
  ab_save
fi
if (( $(left) > 90 )); then
  ab_el "scored D = 64 side by side, keys64"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pk fla-keys64 NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared warp" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 60 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;1,8192,64,4,64,64,16"
  ab_save
fi
ab_el done
