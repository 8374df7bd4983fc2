#!/usr/bin/env bash
# Thirty-first session, call 2.
# 1. cluster_l2_probe, second version (bench/probe/cluster_l2_probe.cu at this commit): grids of resident CTAs only
#    (call 1's cluster sizes 4-16 ran a second wave), two CTAs per SM as well, and distributed shared memory with eight
#    loads in flight a thread.
# 2. Branch nsa-kv-staged (V): the staged dK / dV adds as a variant the host picks where a plane's fp32 dK and dV pass
#    64 MiB (T >= 64K at D = 128; nsa_bwd_wgmma_*_d128_b64_kvs), every other kernel as main. Carried: .gpupack/var/
#    land.fatbin.xz (main's kernels, A), v.fatbin.xz and v-engine.jar (V's kernels and host code; the jar's own fatbin
#    emptied). Checks: the quick NSA verify matrix with the two new T = 64K / 70000 cases (the staged variant; its
#    code ran memcheck / racecheck clean at small T in call 1, where every item staged). Timing: three rounds, A / V.
#   bash docs/results/gpu-2026-12-06e/call2/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
ab_el "probe"
xz -dc .gpupack/var/cluster_l2_probe.xz > /tmp/cluster_l2_probe && chmod +x /tmp/cluster_l2_probe
timeout -k 5 150 /tmp/cluster_l2_probe 2>&1 | tee "$ab_res/probe.txt"
echo "probe rc=${PIPESTATUS[0]}"
for f in land v; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/land.fatbin main
ab_pack /tmp/pv /tmp/v.fatbin nsa-kv-staged .gpupack/var/v-engine.jar
cp bench/gpu/nsa-run.sh /tmp/pv/nsa-run.sh  # the matrix with the T = 64K cases
ab_el "V's checks"
AB_CHECK_TIMEOUT=330 ab_nsa_check /tmp/pv check NSA_PARTS=verify NSA_VERIFY=quick
grep -A12 'seq 65536' "$ab_res/check/nsa/verify.log" | head -16
ab_save
ab_el "timing"
shapes=("1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "4 16384 64 128 5")
for rd in 1 2 3; do
  for cfg in "${shapes[@]}"; do
    read -r b t hq d reps <<<"$cfg"
    if (( rd == 2 )); then order="V A"; else order="A V"; fi
    for v in $order; do
      case $v in A) ab_nsa_bwd /tmp/pa A "$rd" "$b" "$t" "$hq" "$d" "$reps" ;;
                 V) ab_nsa_bwd /tmp/pv V "$rd" "$b" "$t" "$hq" "$d" "$reps" ;; esac
    done
  done
  ab_save
done
ab_el done
