#!/usr/bin/env bash
# Not run (twenty-ninth session: device time spent). With native dQ adds (SAW_NSA_DQ_ACCUM=native) each lane adds
# 4 values (8 bytes) per red; dqn-v4.patch transposes the packed pairs within each quad of lanes (3 shuffles and
# selects per 64-column half-row) so that each lane adds 8 consecutive values (16 bytes, .v4.bf16x2 / .v4.f16x2):
# half as many add operations reach L2 for the same bytes (call 5's profile had L2's atomic input 49% busy with fp32
# adds). ptxas on the patch (sm_90a, -Xptxas -v): no spills in any *_dqn entry, 241-255 registers, but C7519
# ("warpgroup.arrive is injected ... to allow use of registers in GMMA") in nsa_bwd_wgmma_{bf16,fp16}_d128_b64_dqn,
# which main's build does not have: that may cost what the patch saves. Build (about 2 min each, sm_90a only):
#   main:  cd engine/src/main/cuda && nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress \
#            -gencode=arch=compute_90a,code=sm_90a -o /tmp/m.fatbin saw_attention.cu
#   patch: git apply docs/results/gpu-2026-12-06c/next-not-run/dqn-v4.patch, the same nvcc to /tmp/v4.fatbin, then
#          git checkout -- engine
#   pack:  SAW_PACK_SLIM=1 bench/gpu-pack.sh .gpupack; empty its engine jar's fatbin entry (python zipfile, as ab_pack
#          does); xz -9e both fatbins into .gpupack/var/ (the carried tree must stay under 64 MiB)
#   bash docs/results/gpu-2026-12-06c/next-not-run/driver.sh > /dev/null 2>&1; tail -c 6000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init nx
for f in m v4; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pm /tmp/m.fatbin main
ab_pack /tmp/pv /tmp/v4.fatbin dqn-v4
export SAW_NSA_DQ_ACCUM=native
ab_el "quick NSA verify of the patch with native adds"
OUT=$ab_res/check NSA_PARTS=verify NSA_VERIFY=quick timeout -k 5 150 /tmp/pv/nsa-run.sh > "$ab_res/verify.out" 2>&1
grep -E 'verify matrix|failed:' "$ab_res/verify.out"
ab_el "timing, native adds in both"
for round in 1 2; do
  for cfg in "1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "1 32768 64 64 10" \
             "1 32768 16 128 10"; do
    read -r b t hq d reps <<<"$cfg"
    if [[ $round == 1 ]]; then order="m v4"; else order="v4 m"; fi
    for v in $order; do ab_nsa_bwd "/tmp/p${v:0:1}" "$v" "$round" "$b" "$t" "$hq" "$d" "$reps"; done
  done
done
ab_save
ab_el done
