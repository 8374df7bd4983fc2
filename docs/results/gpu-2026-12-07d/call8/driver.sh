#!/usr/bin/env bash
# Forty-first session, call 8: branch nsa-walk-qprefetch (b6ed1e2: the walk's consumers prefetch the next tile's Q rows
# into L2; qpf.fatbin, sha256 48514788...) against main b5e4cd1 (skip.fatbin): fp64 checks and memcheck of the branch,
# then two A/B rounds (the order reversed in round 2) with the walk forced.
# Carry .gpupack (var/pair.tar.xz: skip.fatbin and qpf.fatbin) and .whl:
#   CALL_BUDGET=250 bash docs/results/gpu-2026-12-07d/call8/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init qpf
left() { echo $(( ${CALL_BUDGET:-250} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/pair.tar.xz | tar xf - -C /tmp
sha256sum /tmp/skip.fatbin /tmp/qpf.fatbin
ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1
ab_pack /tmp/pq /tmp/qpf.fatbin qpf-b6ed1e2
ab_el "qpf against the fp64 reference"
v() { local name=$1; shift; SAW_NSA_FWD=shared ab_verify /tmp/pq "$name" "$@" --pass fwd; }
v d64-tail --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 --batch 2
v d64-b128-softcap --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 --head-dim 64 --dtype bf16 \
  --seq 1001 --softcap 30
v d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 8192
v d64-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 3000
SAW_NSA_FWD=shared ab_san /tmp/pq d64 memcheck --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --pass fwd
ab_save
rows=("fwd scored 1 8192 64 64 10" "fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 64 10"
  "fwd scored 1 8192 64 128 10" "fwd scored 1 32768 64 128 10" "fwd random 1 65536 64 128 6")
ab_el "A/B round 1"
SAW_NSA_FWD=shared ab_nsa_rounds 1 "/tmp/ps:main /tmp/pq:qpf" "${rows[@]}"
mv "$ab_res/ab" "$ab_res/ab-1"; mkdir -p "$ab_res/ab"; ab_save
if (( $(left) > 60 )); then
  ab_el "A/B round 2"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "/tmp/pq:qpf /tmp/ps:main" "${rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-2"; mkdir -p "$ab_res/ab"; ab_save
fi
ab_el done
