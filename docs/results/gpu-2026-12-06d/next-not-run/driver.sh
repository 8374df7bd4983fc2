#!/usr/bin/env bash
# Prepared in the thirtieth session, not run (no device time left). stage-more.patch (branch nsa-stage-more) takes the
# staged dQ adds that landed (whole 128-byte lines per vector add) two steps further, through one helper
# (warp_rows_red, the same XOR swizzle with one more bit so 32-byte pairs read conflict-free):
#   SAW_NSA_KV_STAGED   each item's dK / dV adds at its end (64 KB of fp32 at block 64, D = 128) whole lines at a time
#                       through K and V's shared memory, instead of add4_pair's 64-byte halves of eight rows
#   SAW_NSA_DQN_STAGED  the native (opt-in) dQ adds at D = 128 staged too, each lane adding eight values in 16 bytes
#                       (red...v4.bf16x2); staged 8-byte native adds lost 3-9% in call 1, 16-byte ones halve the adds.
#                       ptxas: 4 bytes of spills in nsa_bwd_wgmma_*_d128_b64_dqn, no injected warpgroup.arrive.
# Builds, here (each about 2 minutes; xz them into .gpupack/var, about 2.6 MB each):
#   A:  main's engine/src/main/cuda
#   K:  git apply stage-more.patch; nvcc ... -DSAW_NSA_DQN_STAGED=0 -o k.fatbin saw_attention.cu
#   KN: git apply stage-more.patch; nvcc ... -o kn.fatbin saw_attention.cu   (both switches on)
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress -gencode=arch=compute_90a,code=sm_90a
# A first look, ~6 minutes: K's full NSA verify, memcheck and racecheck, KN's quick verify with native adds, then three
# rounds of fp32 timings (A, K) and two of native (A, K, KN).
#   bash docs/results/gpu-2026-12-06d/next-not-run/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init dn
for f in a k kn; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/a.fatbin main
ab_pack /tmp/pk /tmp/k.fatbin stage-kv
ab_pack /tmp/pkn /tmp/kn.fatbin stage-kv-dqn
ab_el "K's checks"
ab_nsa_check /tmp/pk check NSA_PARTS="verify sanitizer" NSA_SAN_TOOLS="memcheck racecheck"
ab_el "KN's checks (native)"
AB_CHECK_TIMEOUT=150 ab_nsa_check /tmp/pkn check-native SAW_NSA_DQ_ACCUM=native NSA_PARTS="verify sanitizer" \
  NSA_VERIFY=quick NSA_SAN_TOOLS=memcheck
ab_save
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
done
for rd in 1 2; do
  for cfg in "${shapes[@]}"; do
    read -r b t hq d reps <<<"$cfg"
    (( d == 128 )) || continue
    SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/pa An "$rd" "$b" "$t" "$hq" "$d" "$reps"
    SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/pk Kn "$rd" "$b" "$t" "$hq" "$d" "$reps"
    SAW_NSA_DQ_ACCUM=native ab_nsa_bwd /tmp/pkn KNn "$rd" "$b" "$t" "$hq" "$d" "$reps"
  done
done
ab_save
ab_el done
