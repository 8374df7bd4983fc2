#!/usr/bin/env bash
# Prepared in the forty-sixth session (no device machine was lent to it), run in the forty-seventh (driver.log beside
# it): two kernel experiments against main in one call, each a branch whose patch against main 0e78ef1 is beside
# this driver.
#  - halves (branch fwd-halves, halves.patch): the persistent forward's `_spans` kernels at D = 128 run a PARTIAL
#    tile's P V over the 64-key halves its warpgroup's rows attend (KernelCatalog#keyHalves, a new kernel argument);
#    forward rounds on issue 12's rows.
#  - bspans (branch bwd-spans, bwd-spans.patch, the forty-fifth session's next-not-run): column spans in the
#    warp-specialised backward; backward rounds.
# Each branch is checked first (ab_checks: verify cases against fp64 and compute-sanitizer, plus verifies of the
# shapes it changes). Carry .gpupack with var/three.tar.xz (main.fatbin = main's sm_90a build, bspans.fatbin and
# halves.fatbin = the branches', each from engine/src/main/cuda:
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress -gencode=arch=compute_90a,code=sm_90a -o X.fatbin \
#     saw_attention.cu
#   tar cf - main.fatbin bspans.fatbin halves.fatbin | xz -9e > .gpupack/var/three.tar.xz)
# and var/spans-engine.jar (main's engine jar), var/bspans-engine.jar and var/halves-engine.jar (the branches'), each
# with saw/kernels/saw_attention.fatbin emptied (mvn -pl presets,engine package -DskipTests; ab_pack puts one in).
# HALVES_UNTIL, BSPANS_UNTIL: seconds after which no round of that part starts (300 and 480 by default).
# The checkout and .gpupack together (72 MB on disk) exceed the 64 MiB a call carries, so the pack travels as one
# archive in a folder .git/info/exclude ignores (tar cf - .gpupack | xz -9e -T8 > .gpc/pack.tar.xz, 23 MB), carry
# [".gpc"]:
#   tar xJf .gpc/pack.tar.xz && bash docs/results/gpu-2026-12-07j/call1/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init halves
xz -dc .gpupack/var/three.tar.xz | tar xf - -C /tmp
sha256sum /tmp/main.fatbin /tmp/bspans.fatbin /tmp/halves.fatbin .gpupack/var/*-engine.jar
ab_pack /tmp/pm /tmp/main.fatbin "${SAW_LABEL:-main}" "$ab_root/.gpupack/var/spans-engine.jar"
ab_pack /tmp/ph /tmp/halves.fatbin halves "$ab_root/.gpupack/var/halves-engine.jar"
ab_pack /tmp/pb /tmp/bspans.fatbin bwdspans "$ab_root/.gpupack/var/bspans-engine.jar"
pids=()
b=(--block 128x128 --pass fwd,bwd)
# the halves' cases: D = 128 PARTIAL tiles whose warpgroups attend one half, none, or both (ragged documents, window
# tails, chunks, a prefix LM with softcap, fp16)
ab_verify /tmp/ph docs-d128 'and(causal,docs(300,200,500,700,100,300,800,1200,900))' --seq 5000 --heads 8 \
  --kv-heads 2 --head-dim 128 --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ph window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ph chunked-d128 'chunked(384)' --seq 4000 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 \
  --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ph prefix-d128 'or(causal,prefix(700))' --seq 3000 --batch 2 --heads 8 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --softcap 30 --rows 24 "${b[@]}" & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
pids=()
ab_san /tmp/ph docs-d128 racecheck 'and(causal,docs(300,200,500,700,100,300,800,1200,900))' --seq 3000 --heads 2 \
  --kv-heads 2 --head-dim 128 --dtype bf16 --rows 8 --block 128x128 --pass fwd
ab_san /tmp/ph docs-d128 synccheck 'and(causal,docs(300,200,500,700,100,300,800,1200,900))' --seq 3000 --heads 2 \
  --kv-heads 2 --head-dim 128 --dtype bf16 --rows 8 --block 128x128 --pass fwd
ab_checks /tmp/ph
ab_el "halves checked"
ab_save
AB_PASS=fwd AB_DEADLINE=${HALVES_UNTIL:-300} ab_rounds 3 /tmp/pm mainf /tmp/ph halves docs64-32k-d128 docs8-8k-d128 \
  docs8-16k-d128 window1024-16k-d128 causal-8k-d128 "gqa-32k-d128|--kv-heads 8"
ab_save
ab_el "bspans checks"
ab_verify /tmp/pb window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pb prefix-d64 'or(causal,prefix(700))' --seq 3000 --batch 2 --heads 8 --kv-heads 4 --head-dim 64 \
  --dtype bf16 --softcap 30 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pb window-sinks-d128 'and(causal,or(window(300),sinks(4)))' --seq 5000 --heads 4 --kv-heads 2 \
  --head-dim 128 --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_checks /tmp/pb
for pid in "${pids[@]}"; do wait "$pid"; done
ab_save
AB_PASS=bwd AB_DEADLINE=${BSPANS_UNTIL:-480} ab_rounds 3 /tmp/pm mainb /tmp/pb bspans docs64-32k-d128 docs8-8k-d128 \
  docs8-16k-d128 window1024-16k-d128 causal-8k-d128 docs64-32k-d64 window1024-16k-d64
grep -ho '"kernel": *"[^"]*"' "$ab_res"/ab/*-r1.jsonl | sort | uniq -c
ab_save
ab_el done
