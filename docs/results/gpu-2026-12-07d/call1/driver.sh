#!/usr/bin/env bash
# Prepared in the fortieth session, not run (its device time was spent), on main's kernels (b5e4cd1, skip.fatbin; the
# slim pack of 87882a9 serves, the host code is unchanged) and branch nsa-rows-tree (7610ea2, tree.fatbin: each row's
# max and sum over a chunk by a pairwise tree, in the code the warp order and the walk share):
#  1. tree against the fp64 reference (both orders, D = 64 / 128, blocks 32 / 64 / 128, softcap) and A/B against main
#     on the walk's rows and the warp order's;
#  2. where the skipping walk now crosses the warp order (random selections of falling sharing, D = 128 and 64), to
#     move NsaGpu.Forward.sharedMinSharing (1.28 and 1.5 with 64-key chunks, set on the old walk);
#  3. Nsight Compute on the walk at D = 64 (scored 8K, the one scored row under 2x fla, and 32K) and at D = 128 (random
#     64K, at the SMs' intake), to see what bounds the consumers now that they skip;
#  4. synccheck on the walk, and the full verify matrix.
# Carry .gpupack (the slim pack of 87882a9, engine fatbin emptied; var/next.tar.xz: skip.fatbin, tree.fatbin, hashes in
# fatbins.sha256 here) and .whl.
#   CALL_BUDGET=540 bash docs/results/gpu-2026-12-07c/next-not-run/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init next
left() { echo $(( ${CALL_BUDGET:-540} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp
sha256sum /tmp/skip.fatbin /tmp/tree.fatbin
ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1
ab_pack /tmp/pr /tmp/tree.fatbin tree-7610ea2
ab_el "tree against the fp64 reference"
v() { local order=$1 name=$2; shift 2; SAW_NSA_FWD=$order ab_verify /tmp/pr "$name" "$@" --pass fwd; }
v shared d64-tail --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 \
  --batch 2
v shared d64-b128-softcap --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 --head-dim 64 --dtype bf16 \
  --seq 1001 --softcap 30
v shared d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 \
  --seq 8192
v shared d64-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 --head-dim 64 --dtype fp16 \
  --seq 3000
v warp warp-d128-softcap --nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 \
  --seq 2048 --softcap 30
v warp warp-d64-b128 --nsa random --nsa-block 128 --nsa-s 8 --heads 16 --kv-heads 1 --head-dim 64 --dtype bf16 \
  --seq 1500
ab_save
walk=("fwd scored 1 32768 64 64 10" "fwd scored 1 8192 64 64 10" "fwd scored 4 16384 64 64 10"
  "fwd random 1 32768 64 64 10" "fwd scored 1 32768 64 128 10" "fwd random 1 65536 64 128 6")
warp=("fwd random 1 32768 64 128 10" "fwd random 1 32768 64 64 10")
round() { # N, the builds in this round's order
  ab_el "A/B round $1: the walk, then the warp order"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$2" "${walk[@]}"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "$2" "${warp[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$1"; mkdir -p "$ab_res/ab"; ab_save
}
round 1 "/tmp/ps:main /tmp/pr:tree"
ab_el "the crossing on main: walk and warp order on random selections"
for row in "131072 128" "98304 128" "81920 128" "131072 64" "98304 64" "65536 64"; do
  set -- $row
  (( $(left) > 200 )) || break
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "/tmp/ps:shared" "fwd random 1 $1 64 $2 6"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/ps:warp" "fwd random 1 $1 64 $2 6"
done
grep -ho '"walk_sharing":[0-9.]*' "$ab_res"/ab/shared-*.jsonl | head -6
mv "$ab_res/ab" "$ab_res/crossing"; mkdir -p "$ab_res/ab"; ab_save
(( $(left) > 170 )) && round 2 "/tmp/pr:tree /tmp/ps:main"
for p in "scored 8192 64" "scored 32768 64" "random 65536 128"; do
  set -- $p
  (( $(left) > 100 )) || break
  ab_prof /tmp/ps "walk-$1-$2-d$3" '^nsa_fwd_shared' SAW_NSA_FWD=shared -- --nsa "$1" --heads 64 --kv-heads 4 \
    --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --reps 1 --warmup 2 --pass fwd --seq "$2" --head-dim "$3" \
    --out /tmp/p.jsonl
  ab_save
done
if (( $(left) > 60 )); then
  SAW_NSA_FWD=shared ab_san /tmp/ps d64 synccheck --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
  ab_save
fi
if (( $(left) > 60 )); then
  ab_el "full verify matrix, main"
  AB_CHECK_TIMEOUT=$(( $(left) - 5 )) ab_nsa_check /tmp/ps check NSA_PARTS=verify
  ab_save
fi
ab_el done
