#!/usr/bin/env bash
# Prepared in the thirty-first session, not run (device time spent). Two questions for a call of about 6 minutes:
# 1. Issue 14's targets name the H200, and no H200 has run the NSA kernels since the twenty-seventh session: on an H200,
#    the side by side with fla-core 0.5.2 on every published shape (main as it is, with the staged dK / dV variant).
# 2. Which forward order to take on selections whose neighbouring tokens share blocks (top-S of block scores, as real
#    NSA selections are): the warp order ran 8.0 ms on scored and random selections alike at T = 32K (call 4 of
#    gpu-2026-12-06e), so it takes nothing from the sharing; the per-block order loads each block once per token chunk
#    and was level with it on random ones. If the per-block order wins on scored selections, `auto` should look at the
#    selection's sharing (NsaStats), not only at G.
# Carry: .gpupack = a plain pack of main (SAW_PACK_SLIM=1 bench/gpu-pack.sh .gpupack, its fatbin inside) and .whl.
#   bash docs/results/gpu-2026-12-06e/next-not-run/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init nx
ab_el "side by side with fla"
ab_nsa_fla .gpupack fla
ab_save
ab_el "forward orders on scored and random selections"
rows=("scored 1 32768 64 128 10" "scored 1 65536 64 128 5" "scored 1 32768 32 128 10" "scored 1 32768 16 128 10"
      "random 1 32768 64 128 10")
for rd in 1 2; do
  for row in "${rows[@]}"; do
    if (( rd == 2 )); then orders="block warp"; else orders="warp block"; fi
    for order in $orders; do
      # shellcheck disable=SC2086
      SAW_NSA_FWD=$order ab_nsa_time .gpupack "$order" "$rd" fwd $row
    done
  done
  ab_save
done
ab_el done
