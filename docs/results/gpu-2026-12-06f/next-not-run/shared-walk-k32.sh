#!/usr/bin/env bash
# Prepared in the thirty-second session, not run (its starts got no machine, then the device time was spent). Call 1
# found the shared walk correct but no faster than the warp order on scored selections, flat across G (8.5-8.7 ms at
# G = 4, 8 and 16) and sharing: bound by its consumer warps' chunk latency, not by loads. This build (branch
# nsa-fwd-shared2, = main + shared-walk-k32.patch) gives each consumer chunk 32 keys instead of 16 (four score chains a
# warp instead of two, one softmax reduction per 32 keys; 12 ring slots of 16 KB), and a second tile of 11 tokens
# (SAW_NSA_SHARED_TOKENS=11: 11 consumer warps and the producer get the same 168 registers as 8 + 1, since ptxas
# allocates for whole warpgroups): both tiles checked against the fp64 reference and the sanitizers, timed beside the
# warp order; then issue 14's side by side with fla on main (random selections) if the machine is an H200.
# Builds, here: git apply shared-walk-k32.patch on main (c37d098 or later), then in engine/src/main/cuda (about 2.5
# minutes; ptxas: 168 registers and a 16-byte spill at D = 128 for both tiles, 127 at D = 64):
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress -gencode=arch=compute_90a,code=sm_90a -o s11.fatbin saw_attention.cu
# (its 240 other functions' .text equal main's; sha256 in ../fatbins.sha256), the engine jar with that fatbin in
# engine/target/classes and its fatbin entry then emptied -> s11-engine.jar; xz the fatbin. Carry: .gpupack = slim pack
# of main (engine jar's fatbin emptied), var/s11.fatbin.xz, var/s11-engine.jar, .whl. About 3.5 minutes without the
# side by side, 7 with it.
#   bash docs/results/gpu-2026-12-06f/next-not-run/shared-walk-k32.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init k32
xz -dc .gpupack/var/s11.fatbin.xz > /tmp/s11.fatbin
ab_pack /tmp/pa /tmp/s11.fatbin main
ab_pack /tmp/ps /tmp/s11.fatbin nsa-fwd-shared2 .gpupack/var/s11-engine.jar
cp bench/gpu/nsa-run.sh /tmp/pa/
ab_el "the 32-key shared walk, tiles of 8 and 11 tokens, against the fp64 reference"
cases=("--nsa random --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 2048"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30"
       "--nsa random --nsa-block 32 --nsa-s 32 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --seq 1000"
       "--nsa random --nsa-block 128 --nsa-s 8 --heads 4 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 1500"
       "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096"
       "--nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 --batch 2"
       "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 1 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 3000"
       "and(causal,docs(700,900,400)) --nsa mask --seq 2000 --block 64x64 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16")
shared_ok=1
for tile in 8 11; do
  for i in "${!cases[@]}"; do
    # shellcheck disable=SC2086
    SAW_NSA_SHARED_TOKENS=$tile SAW_NSA_FWD=shared ab_verify /tmp/ps "w$tile-$i" --pass fwd,bwd ${cases[i]}; rc=$?
    if (( rc == 124 || rc == 137 )); then echo "shared walk hung: the rest of its part is skipped"; shared_ok=0; break 2; fi
  done
done
if (( shared_ok )); then
  for tile in 8 11; do
    for tool in memcheck racecheck synccheck; do
      SAW_NSA_SHARED_TOKENS=$tile SAW_NSA_FWD=shared ab_san /tmp/ps "w$tile" "$tool" --pass fwd --nsa random --seq 300 \
        --dtype bf16 --nsa-block 64 --nsa-s 6 --heads 16 --kv-heads 2 --head-dim 128 --softcap 20
    done
  done
  ab_save
  ab_el "timing: warp (main) against the walk with tiles of 8 and 11, two rounds"
  rows=("scored 1 32768 64 128 10" "random 1 32768 64 128 10" "scored 1 65536 64 128 5" "scored 1 32768 64 64 10"
        "scored 1 32768 32 128 10")
  for rd in 1 2; do
    for row in "${rows[@]}"; do
      if (( rd == 1 )); then tags="warp w8 w11"; else tags="w11 w8 warp"; fi
      for tag in $tags; do
        # shellcheck disable=SC2086
        case $tag in
          warp) SAW_NSA_FWD=warp ab_nsa_time /tmp/pa warp $rd fwd $row ;;
          w8) SAW_NSA_SHARED_TOKENS=8 SAW_NSA_FWD=shared ab_nsa_time /tmp/ps w8 $rd fwd $row ;;
          w11) SAW_NSA_SHARED_TOKENS=11 SAW_NSA_FWD=shared ab_nsa_time /tmp/ps w11 $rd fwd $row ;;
        esac
      done
    done
  done
  ab_save
fi
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then  # call 1 ran it on an H100 already
  ab_el "side by side with fla, random selections (main)"
  ab_nsa_fla /tmp/pa fla
  ab_save
fi
ab_el done
