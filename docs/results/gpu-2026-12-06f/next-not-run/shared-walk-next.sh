#!/usr/bin/env bash
# Prepared in the thirty-second session, not run (its starts got no machine, then the device time was spent). Call 1
# found the shared walk correct but no faster than the warp order on scored selections, flat across G (8.5-8.7 ms at
# G = 4, 8 and 16) and sharing: bound by its consumer warps' chunk latency, not by loads. This build (branch
# nsa-fwd-shared2 = main + shared-walk-next.patch) changes three things, each a setting, so one call can tell them apart:
#   - 32-key consumer chunks instead of 16 (four score chains a warp, one softmax reduction per 32 keys; 12 ring slots
#     of 16 KB): every variant below;
#   - SAW_NSA_SHARED_TOKENS=11: tiles of 11 tokens (11 consumer warps and the producer get the same 168 registers as
#     8 + 1, since ptxas allocates for whole warpgroups);
#   - SAW_NSA_SHARED_SKIP=1: consumers skip the chunks they do not compute (the producer arrives for them; a per-slot
#     fill number guards the parity waits, checked in walk_skip_model.py beside this file).
# Each variant against the fp64 reference and the sanitizers, then timed beside the warp order; then issue 14's side
# by side with fla on main (random selections) if the machine is an H200.
# Builds, here: git apply shared-walk-next.patch on main (c37d098 or later), then in engine/src/main/cuda (about 3
# minutes; ptxas: 168 registers with a 28-byte spill at D = 128, 128 registers at D = 64, every variant):
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress -gencode=arch=compute_90a,code=sm_90a -o s4.fatbin saw_attention.cu
# (its 240 other functions' .text equal main's; sha256 in ../fatbins.sha256), the engine jar with that fatbin in
# engine/target/classes and its fatbin entry then emptied -> s4-engine.jar; xz the fatbin. Carry: .gpupack = slim pack
# of main (engine jar's fatbin emptied), var/s4.fatbin.xz, var/s4-engine.jar, .whl. About 5 minutes without the side
# by side, 8.5 with it (drop the D = 64 row or a round if the call must be shorter).
#   bash docs/results/gpu-2026-12-06f/next-not-run/shared-walk-next.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init next
xz -dc .gpupack/var/s4.fatbin.xz > /tmp/s4.fatbin
ab_pack /tmp/pa /tmp/s4.fatbin main
ab_pack /tmp/ps /tmp/s4.fatbin nsa-fwd-shared2 .gpupack/var/s4-engine.jar
cp bench/gpu/nsa-run.sh /tmp/pa/
variants=("8 0" "11 0" "8 1" "11 1")  # tokens a tile, skip
tag() { echo "w$1$([[ $2 == 1 ]] && echo s)"; }
ab_el "the walk's four variants against the fp64 reference"
cases=("--nsa random --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 2048"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30"
       "--nsa random --nsa-block 32 --nsa-s 32 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --seq 1000"
       "--nsa random --nsa-block 128 --nsa-s 8 --heads 4 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 1500"
       "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096"
       "--nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 --batch 2"
       "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1"
       "--nsa random --nsa-block 64 --nsa-s 16 --heads 1 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 3000"
       "and(causal,docs(700,900,400)) --nsa mask --seq 2000 --block 64x64 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16")
ok=()
for v in "${variants[@]}"; do
  read -r tokens skip <<<"$v"
  good=1
  for i in "${!cases[@]}"; do
    # shellcheck disable=SC2086
    SAW_NSA_SHARED_TOKENS=$tokens SAW_NSA_SHARED_SKIP=$skip SAW_NSA_FWD=shared \
      ab_verify /tmp/ps "$(tag $tokens $skip)-$i" --pass fwd,bwd ${cases[i]}; rc=$?
    if (( rc == 124 || rc == 137 )); then echo "$(tag $tokens $skip) hung: skipped from here on"; good=0; break; fi
  done
  (( good )) && ok+=("$v")
done
for v in "${ok[@]}"; do
  read -r tokens skip <<<"$v"
  for tool in memcheck racecheck synccheck; do
    SAW_NSA_SHARED_TOKENS=$tokens SAW_NSA_SHARED_SKIP=$skip SAW_NSA_FWD=shared ab_san /tmp/ps "$(tag $tokens $skip)" \
      "$tool" --pass fwd --nsa random --seq 300 --dtype bf16 --nsa-block 64 --nsa-s 6 --heads 16 --kv-heads 2 \
      --head-dim 128 --softcap 20
  done
done
ab_save
ab_el "timing: warp (main) against every variant that passed, two rounds"
rows=("scored 1 32768 64 128 10" "random 1 32768 64 128 10" "scored 1 65536 64 128 5" "scored 1 32768 32 128 10"
      "scored 1 32768 64 64 10")
for rd in 1 2; do
  for row in "${rows[@]}"; do
    # shellcheck disable=SC2086
    (( rd == 1 )) && SAW_NSA_FWD=warp ab_nsa_time /tmp/pa warp $rd fwd $row
    for v in "${ok[@]}"; do
      read -r tokens skip <<<"$v"
      # shellcheck disable=SC2086
      SAW_NSA_SHARED_TOKENS=$tokens SAW_NSA_SHARED_SKIP=$skip SAW_NSA_FWD=shared \
        ab_nsa_time /tmp/ps "$(tag $tokens $skip)" $rd fwd $row
    done
    # shellcheck disable=SC2086
    (( rd == 2 )) && SAW_NSA_FWD=warp ab_nsa_time /tmp/pa warp $rd fwd $row
  done
  ab_save
done
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then  # call 1 ran it on an H100 already
  ab_el "side by side with fla, random selections (main)"
  ab_nsa_fla /tmp/pa fla
  ab_save
fi
ab_el done
