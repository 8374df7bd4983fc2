#!/usr/bin/env bash
# Prepared in the fortieth session, not run (its device time was spent): on main b5e4cd1's kernels (skip.fatbin in
# .gpupack/var/skip.tar.xz; the slim pack of 87882a9 serves, the host code is unchanged), what the next change needs:
#  1. where the skipping walk now crosses the warp order (random selections of falling sharing, D = 128 and 64), to
#     move NsaGpu.Forward.sharedMinSharing (1.28 and 1.5 with 64-key chunks, set on the old walk);
#  2. Nsight Compute on the walk at D = 64 (scored 8K, the one scored row under 2x fla, and 32K) and at D = 128 (random
#     64K, at the SMs' intake), to see what bounds the consumers now that they skip;
#  3. synccheck on the walk, and the full verify matrix.
# Carry .gpupack and .whl as for ../call2/driver.sh.
#   CALL_BUDGET=540 bash docs/results/gpu-2026-12-07c/next-not-run/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init next
left() { echo $(( ${CALL_BUDGET:-540} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/skip.tar.xz | tar xf - -C /tmp skip.fatbin
sha256sum /tmp/skip.fatbin
ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1
ab_el "the crossing: walk and warp order on random selections"
for row in "131072 128" "98304 128" "81920 128" "131072 64" "98304 64" "65536 64"; do
  set -- $row
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "/tmp/ps:shared" "fwd random 1 $1 64 $2 6"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/ps:warp" "fwd random 1 $1 64 $2 6"
done
grep -ho '"walk_sharing":[0-9.]*' "$ab_res"/ab/shared-*.jsonl | head -6
ab_save
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
  ab_el "full verify matrix"
  AB_CHECK_TIMEOUT=$(( $(left) - 5 )) ab_nsa_check /tmp/ps check NSA_PARTS=verify
  ab_save
fi
ab_el done
