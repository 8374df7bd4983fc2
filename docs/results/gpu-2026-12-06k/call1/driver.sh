#!/usr/bin/env bash
# Thirty-seventh session, call 1: the thirty-sixth session's prepared call (docs/results/gpu-2026-12-06j/next-not-run/,
# three builds of the shared walk against main's persistent walk: ring64 and keys64 for D = 64, ring13 for D = 128)
# with three builds added:
#   pipe    (branch nsa-walk-pipe, on main): the consumers walk the tile's chunks through one cursor that waits for
#           and releases the chunks their token does not use; at D = 64 a consumer issues the scores of its next used
#           chunk before the softmax and P x V of this one, holding this chunk's slot meanwhile (the search stops short
#           of the position a ring on). D = 64 148 registers (main 152), D = 128 168 with a 4-byte spill (main 16).
#   pipe128 (branch nsa-walk-pipe128, on pipe): the same early scores at D = 128 too, a probe: 168 registers and
#           108 bytes of spill stores (120 of loads).
#   pipe128q (branch nsa-walk-pipe128q, on pipe128): at D = 128 each consumer keeps its 16 x 128 Q in shared memory
#           (read by ldmatrix per chunk; the ring at 11 slots to make room), so the early scores fit 168 registers
#           without spills; host code differs (the walk's shared memory), so its engine jar comes too.
# pipe differs from main in the 12 walk entries (D = 128's only by the cursor's code), pipe128 and pipe128q from pipe
# in the 6 D = 128 ones. In order: ring13's, pipe's, pipe128's and pipe128q's D = 128 walk and each build's D = 64 walk
# against the fp64 reference with memcheck / racecheck, three A/B rounds (D = 64 rows: main, pipe, ring64, keys64,
# ring13; D = 128 rows: main, pipe128q, ring13, pipe, pipe128), then pipe128q's quick verify matrix and its side by
# side with fla if time is left.
# Carry .gpupack (slim pack of main 8c87593 + var/fatbins.tar.xz: main, ring64, keys64, ring13, pipe, pipe128 and
# pipe128q fatbins; and var/ring64-engine.jar, var/keys64-engine.jar, var/ring13-engine.jar,
# var/pipe128q-engine.jar, fatbins emptied) and .whl.
#   CALL_BUDGET=590 bash docs/results/gpu-2026-12-06k/call1/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pq
left() { echo $(( ${CALL_BUDGET:-590} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
sha256sum /tmp/main.fatbin /tmp/ring64.fatbin /tmp/keys64.fatbin /tmp/ring13.fatbin /tmp/pipe.fatbin \
  /tmp/pipe128.fatbin /tmp/pipe128q.fatbin \
  .gpupack/var/*-engine.jar
ab_pack /tmp/pm /tmp/main.fatbin main-8c87593
ab_pack /tmp/pr /tmp/ring64.fatbin ring64 .gpupack/var/ring64-engine.jar
ab_pack /tmp/pk /tmp/keys64.fatbin keys64 .gpupack/var/keys64-engine.jar
ab_pack /tmp/p13 /tmp/ring13.fatbin ring13 .gpupack/var/ring13-engine.jar
ab_pack /tmp/pp /tmp/pipe.fatbin pipe
ab_pack /tmp/p8 /tmp/pipe128.fatbin pipe128
ab_pack /tmp/pq /tmp/pipe128q.fatbin pipe128q .gpupack/var/pipe128q-engine.jar
ab_el "ring13 at D = 128 against the fp64 reference"
SAW_NSA_FWD=shared ab_verify /tmp/p13 d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/p13 d128-scored-many --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 \
  --kv-heads 4 --head-dim 128 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_san /tmp/p13 d128 racecheck --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 128 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
ab_el "pipe at D = 128 against the fp64 reference"
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-scored-many --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 \
  --kv-heads 4 --head-dim 128 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/p8 d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/p8 d128-scored-many --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 \
  --kv-heads 4 --head-dim 128 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pq d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pq d128-scored-many --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 \
  --kv-heads 4 --head-dim 128 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pq d128-b128-b32 --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 \
  --head-dim 128 --dtype bf16 --seq 3001 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pq d128-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 \
  --head-dim 128 --dtype fp16 --seq 1500 --batch 2 --pass fwd
for tool in memcheck racecheck; do
  SAW_NSA_FWD=shared ab_san /tmp/pq d128 "$tool" --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
    --head-dim 128 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
done
ab_el "the D = 64 walks against the fp64 reference"
for p in /tmp/pp /tmp/pr /tmp/pk /tmp/p13; do
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
  builds="/tmp/pm:main /tmp/pp:pipe /tmp/pr:ring64 /tmp/pk:keys64 /tmp/p13:ring13"
  [[ $rd == 2 ]] && builds="/tmp/p13:ring13 /tmp/pk:keys64 /tmp/pr:ring64 /tmp/pp:pipe /tmp/pm:main"
  [[ $rd == 3 ]] && builds="/tmp/pp:pipe /tmp/pr:ring64 /tmp/p13:ring13 /tmp/pk:keys64 /tmp/pm:main"
  ab_el "A/B round $rd (auto: the walk on each row)"
  ab_nsa_rounds 1 "$builds" "${rows[@]}"
  b128="/tmp/pm:main /tmp/pq:pipe128q /tmp/p13:ring13 /tmp/pp:pipe /tmp/p8:pipe128"
  [[ $rd == 2 ]] && b128="/tmp/p8:pipe128 /tmp/pp:pipe /tmp/p13:ring13 /tmp/pq:pipe128q /tmp/pm:main"
  [[ $rd == 3 ]] && b128="/tmp/pq:pipe128q /tmp/pp:pipe /tmp/pm:main /tmp/p8:pipe128 /tmp/p13:ring13"
  ab_nsa_rounds 1 "$b128" "${rows128[@]}"
  # the walk forced where auto runs the warp order
  for b in "/tmp/pm:main" "/tmp/pp:pipe" "/tmp/pr:ring64" "/tmp/pk:keys64"; do
    SAW_NSA_FWD=shared ab_nsa_rounds 1 "$b" "fwd random 1 8192 64 64 10" "fwd random 1 32768 64 64 10"
  done
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
if (( $(left) > 110 )); then
  ab_el "pipe128q (the early scores at both head dims): quick verify matrix"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_check /tmp/pq check NSA_PARTS=verify NSA_VERIFY=quick
  ab_save
fi
if (( $(left) > 90 )); then
  ab_el "scored side by side, pipe128q"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pq fla-pipe128q NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 60 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,65536,64,4,128,64,16;1,32768,64,4,64,64,16;4,16384,64,4,64,64,16"
  ab_save
fi
ab_el done
