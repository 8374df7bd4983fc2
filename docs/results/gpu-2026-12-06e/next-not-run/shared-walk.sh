#!/usr/bin/env bash
# Prepared in the thirty-first session, not run: the shared walk (branch nsa-fwd-shared, SAW_NSA_FWD=shared), the
# forward order for selections that share blocks (docs/kernel-notes.md, open leads, "NSA forward on selections that
# share blocks"). ptxas (sm_90a): 168 registers at D = 128, 111 at D = 64, no spills; every other function's .text
# unchanged. Prediction: 3-5 ms against the warp order's 8.0 on scored selections at T = 32K, G = 16; about level with it
# on random ones.
# Builds, here (about 2.5 minutes each; xz them into .gpupack/var):
#   A: main's engine/src/main/cuda                       -> a.fatbin
#   S: git checkout nsa-fwd-shared (or git apply shared-walk.patch, here, on main at 5b6ee53 or later); the same command
#                                                       -> s.fatbin, and its engine jar with the fatbin emptied
#      (mvn -o -q -pl presets,engine -am package -DskipTests, then zero saw/kernels/saw_attention.fatbin) -> s-engine.jar
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress -gencode=arch=compute_90a,code=sm_90a -o X.fatbin saw_attention.cu
# Carry .gpupack (a slim pack, SAW_PACK_SLIM=1 bench/gpu-pack.sh, its engine jar's fatbin emptied) with var/a.fatbin.xz,
# var/s.fatbin.xz, var/s-engine.jar; about 5 minutes.
#   bash docs/results/gpu-2026-12-06e/next-not-run/shared-walk.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init sw
for f in a s; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/a.fatbin main
ab_pack /tmp/ps /tmp/s.fatbin nsa-fwd-shared .gpupack/var/s-engine.jar
ab_el "the shared walk against the fp64 reference"
cases=("--nsa random --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 2048"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30"
       "--nsa random --nsa-block 32 --nsa-s 32 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --seq 1000"
       "--nsa random --nsa-block 128 --nsa-s 8 --heads 4 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 1500"
       "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096"
       "--nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 --batch 2"
       "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 1 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 3000"
       "and(causal,docs(700,900,400)) --nsa mask --seq 2000 --block 64x64 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16")
for i in "${!cases[@]}"; do
  # shellcheck disable=SC2086
  SAW_NSA_FWD=shared ab_verify /tmp/ps "shared$i" --pass fwd,bwd ${cases[i]}
done
for tool in memcheck racecheck synccheck; do
  SAW_NSA_FWD=shared ab_san /tmp/ps shared "$tool" --pass fwd --nsa random --seq 300 --dtype bf16 --nsa-block 64 \
    --nsa-s 6 --heads 16 --kv-heads 2 --head-dim 128 --softcap 20
done
ab_save
ab_el "timing: warp (A) against shared (S), and the per-block order (A), random and scored"
rows=("scored 1 32768 64 128 10" "random 1 32768 64 128 10" "scored 1 65536 64 128 5" "random 1 65536 64 128 5"
      "scored 1 32768 32 128 10" "scored 1 32768 16 128 10" "scored 1 32768 64 64 10")
for rd in 1 2; do
  for row in "${rows[@]}"; do
    # shellcheck disable=SC2086
    SAW_NSA_FWD=warp ab_nsa_time /tmp/pa warp "$rd" fwd $row
    # shellcheck disable=SC2086
    SAW_NSA_FWD=shared ab_nsa_time /tmp/ps shrd "$rd" fwd $row
    # shellcheck disable=SC2086
    SAW_NSA_FWD=block ab_nsa_time /tmp/pa blk "$rd" fwd $row
  done
  ab_save
done
ab_el done
