#!/usr/bin/env bash
# Thirty-first session, call 4: does the warp-order forward gain where tokens share blocks if its K / V copies go
# through L1 (cp.async.ca instead of .cg; branch nsa-warp-l1, W)? Each warp walks its token's blocks in ascending
# order (the generators sort them), so warps of one SM whose tokens chose the same block may meet it close in time.
# A = call 3's landed build (v3.fatbin.xz; its warp forward is main's). Three rounds of the forward on random selections
# (T = 64K, 32K, 8K at G = 16, D = 128; D = 64) and on top-S-of-block-scores ones (T = 32K, 64K), both packs on
# v-engine.jar. Then synccheck on the landed `_kvs` variant at T = 65536, and W's quick NSA verify.
#   bash docs/results/gpu-2026-12-06e/call4/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c4
for f in v3 w; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/v3.fatbin nsa-kv-staged .gpupack/var/v-engine.jar
ab_pack /tmp/pw /tmp/w.fatbin nsa-warp-l1 .gpupack/var/v-engine.jar
ab_el "timing"
rows=("random 1 65536 64 128 5" "random 1 32768 64 128 10" "random 1 8192 64 128 10" "random 1 32768 64 64 10"
      "scored 1 32768 64 128 10" "scored 1 65536 64 128 5")
for rd in 1 2 3; do
  for row in "${rows[@]}"; do
    read -r sel b t hq d reps <<<"$row"
    if (( rd == 2 )); then order="W A"; else order="A W"; fi
    for v in $order; do
      SAW_NSA_FWD=warp ab_nsa_time "/tmp/p${v,,}" "$v" "$rd" fwd "$sel" "$b" "$t" "$hq" "$d" "$reps"
    done
  done
  ab_save
done
ab_el "synccheck on the staged variant"
ab_san /tmp/pa kvs64k synccheck --pass fwd,bwd --nsa random --nsa-block 64 --nsa-s 2 --heads 1 --kv-heads 1 \
  --head-dim 128 --dtype bf16 --seq 65536
ab_save
ab_el "W's quick verify"
OUT=$ab_res/check NSA_PARTS="verify" NSA_VERIFY=quick timeout -k 5 200 /tmp/pw/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify.out" | head -6
ab_save
ab_el done
