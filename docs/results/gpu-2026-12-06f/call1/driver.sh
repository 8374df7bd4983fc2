#!/usr/bin/env bash
# Thirty-second session, call 1 (H200): the shared walk (branch nsa-fwd-shared2 = main c37d098 + the prepared
# nsa-fwd-shared commit; SAW_NSA_FWD=shared) checked and timed beside the warp and per-block orders, then issue 14's side
# by side with fla-core 0.5.2 on main (random selections, as fla's benchmark draws them), then on scored selections
# (top-S of block scores: neighbouring tokens choose alike) with the branch's orders, then the sanitizers.
# Carry: .gpupack = slim pack of main (engine jar's fatbin emptied), var/s.fatbin.xz (the branch's sm_90a build: main's
# 240 functions with .text byte-identical to main's, plus the 12 nsa_fwd_shared_*; so pack A = main's host code over
# this fatbin runs main's kernels, and one fatbin fits the carry), var/s-engine.jar (the branch's host code),
# .whl (fla-core 0.5.2, einops 0.8.2).
#   bash docs/results/gpu-2026-12-06f/call1/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c1
xz -dc .gpupack/var/s.fatbin.xz > /tmp/s.fatbin
ab_pack /tmp/pa /tmp/s.fatbin main
ab_pack /tmp/ps /tmp/s.fatbin nsa-fwd-shared2 .gpupack/var/s-engine.jar
cp bench/gpu/nsa-run.sh /tmp/pa/ && cp bench/gpu/nsa-run.sh /tmp/ps/  # NSA_COMPARE_SELECTION is newer than the pack
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
shared_ok=1
for i in "${!cases[@]}"; do
  # shellcheck disable=SC2086
  SAW_NSA_FWD=shared ab_verify /tmp/ps "shared$i" --pass fwd,bwd ${cases[i]}; rc=$?
  if (( rc == 124 || rc == 137 )); then echo "shared walk hung: the rest of its part is skipped"; shared_ok=0; break; fi
done
ab_save
rows=("scored 1 32768 64 128 10" "random 1 32768 64 128 10" "scored 1 65536 64 128 5" "random 1 65536 64 128 5"
      "scored 1 32768 32 128 10" "scored 1 32768 16 128 10" "scored 1 32768 64 64 10")
ab_el "timing: warp and per-block (main) against shared"
for row in "${rows[@]}"; do
  # shellcheck disable=SC2086
  SAW_NSA_FWD=warp ab_nsa_time /tmp/pa warp 1 fwd $row
  # shellcheck disable=SC2086
  (( shared_ok )) && SAW_NSA_FWD=shared ab_nsa_time /tmp/ps shrd 1 fwd $row
  # shellcheck disable=SC2086
  SAW_NSA_FWD=block ab_nsa_time /tmp/pa blk 1 fwd $row
done
ab_save
ab_el "side by side with fla, random selections (main)"
ab_nsa_fla /tmp/pa fla
ab_save
ab_el "side by side with fla, scored selections (the branch: warp and shared, or warp and block)"
orders="warp shared"; (( shared_ok )) || orders="warp block"
AB_CHECK_TIMEOUT=150 ab_nsa_fla /tmp/ps fla-scored NSA_COMPARE_SELECTION=scored NSA_COMPARE_ORDERS="$orders" \
  NSA_COMPARE_SECONDS=100 NSA_COMPARE_TIMEOUT=140 NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,32768,64,4,64,64,16"
ab_save
if (( shared_ok )); then
  ab_el "sanitizers on the shared walk"
  for tool in memcheck racecheck synccheck; do
    SAW_NSA_FWD=shared ab_san /tmp/ps shared "$tool" --pass fwd --nsa random --seq 300 --dtype bf16 --nsa-block 64 \
      --nsa-s 6 --heads 16 --kv-heads 2 --head-dim 128 --softcap 20
  done
  ab_save
fi
ab_el done
