#!/usr/bin/env bash
# Thirty-first session, call 1. Two things in one call:
# 1. bench/probe/cluster_l2_probe.cu (built here with nvcc for sm_90a, carried as .gpupack/var/cluster_l2_probe.xz):
#    do thread-block clusters that multicast each block to several CTAs deliver more bytes a second to shared memory
#    than L2 can read for one CTA each, and how fast is distributed shared memory? (Issue 14's forward: the only order
#    with room for 2x fla on random selections shares blocks inside a cluster.)
# 2. (timings first, checks last: the call may end at its limit) The thirtieth session's prepared stage-more patch (docs/results/gpu-2026-12-06d/next-not-run/: dK / dV item-end
#    adds, and the opt-in native dQ adds, in whole lines through warp_rows_red). Builds carried in .gpupack/var:
#    land = main's kernels (A), k = patch with -DSAW_NSA_DQN_STAGED=0 (K). KN (both switches) did not fit the carry;
#    the native rounds time K's build (its native adds are main's) against A as a control.
#   bash docs/results/gpu-2026-12-06e/call1/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c1
ab_el "probe"
xz -dc .gpupack/var/cluster_l2_probe.xz > /tmp/cluster_l2_probe && chmod +x /tmp/cluster_l2_probe
timeout -k 5 150 /tmp/cluster_l2_probe 2>&1 | tee "$ab_res/probe.txt"
echo "probe rc=${PIPESTATUS[0]}"
for f in land k; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/land.fatbin main
ab_pack /tmp/pk /tmp/k.fatbin stage-kv
ab_el "timing"
shapes=("1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "4 16384 64 128 5"
        "1 32768 64 64 10" "1 32768 32 128 10" "1 32768 16 128 10")
for rd in 1 2 3; do
  for cfg in "${shapes[@]}"; do
    read -r b t hq d reps <<<"$cfg"
    if (( rd == 2 )); then order="K A"; else order="A K"; fi
    for v in $order; do
      case $v in A) ab_nsa_bwd /tmp/pa A "$rd" "$b" "$t" "$hq" "$d" "$reps" ;;
                 K) ab_nsa_bwd /tmp/pk K "$rd" "$b" "$t" "$hq" "$d" "$reps" ;; esac
    done
  done
  ab_save
done
for rd in 1; do
  for cfg in "${shapes[@]}"; do
    read -r b t hq d reps <<<"$cfg"
    (( d == 128 )) || continue
    SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/pa An "$rd" "$b" "$t" "$hq" "$d" "$reps"
    SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/pk Kn "$rd" "$b" "$t" "$hq" "$d" "$reps"
  done
done
ab_save
ab_el "K's checks"
ab_nsa_check /tmp/pk check NSA_PARTS="verify sanitizer" NSA_SAN_TOOLS="memcheck racecheck"
ab_save
ab_el done
