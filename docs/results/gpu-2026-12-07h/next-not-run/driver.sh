#!/usr/bin/env bash
# Prepared in the forty-fifth session, not run (its device time ran out on refused starts): column spans in the
# warp-specialised backward (branch bwd-spans, `bwd-spans.patch` here against main be2c3ce). A PARTIAL step is masked
# by four words of its transposed bit tile, loaded from global memory at the step; the `_spans` entries load one word
# a thread (its two kv rows' runs of attending queries, TileLists#colSpans, passed in bitsT's place) a step ahead with
# the step's LSE and Dsum. Against main as landed, same harness:
#  1. checks of the branch (ab_checks: its D = 64 and 128 padded documents, window, prefix and causal cases take the
#     `_spans` backwards) plus verifies of a window tail, chunks, a prefix LM with softcap, and window + sinks (bit
#     tiles in the forward, column spans in the backward);
#  2. backward rounds (3, alternating which build goes first) on issue 12's D = 128 rows and short rows at D = 64;
#  3. issue 12's side-by-side table (frontier-table.sh, one round) on main as landed, while the call's time lasts.
# Carry .gpupack with var/both.tar.xz holding spans2.fatbin (main's sm_90a build) and bspans.fatbin (the same with the
# patch applied), both from engine/src/main/cuda:
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress -gencode=arch=compute_90a,code=sm_90a -o X.fatbin \
#     saw_attention.cu
#   tar cf - spans2.fatbin bspans.fatbin | xz -9e > .gpupack/var/both.tar.xz
# and var/spans-engine.jar (main's engine jar) and var/bspans-engine.jar (the patched one), each with its
# saw/kernels/saw_attention.fatbin emptied (mvn -pl presets,engine package -DskipTests; ab_pack puts the fatbin in).
# (ROUNDS_UNTIL, FRONTIER_UNTIL: seconds after which no round, no table starts; 420 and 480 by default)
#   bash docs/results/gpu-2026-12-07h/next-not-run/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init bspans
xz -dc .gpupack/var/both.tar.xz | tar xf - -C /tmp
sha256sum /tmp/spans2.fatbin /tmp/bspans.fatbin .gpupack/var/spans-engine.jar .gpupack/var/bspans-engine.jar
ab_pack /tmp/pm /tmp/spans2.fatbin "${SAW_LABEL:-main}" "$ab_root/.gpupack/var/spans-engine.jar"
ab_pack /tmp/pb /tmp/bspans.fatbin bwdspans "$ab_root/.gpupack/var/bspans-engine.jar"
pids=()
b=(--block 128x128 --pass fwd,bwd)
ab_verify /tmp/pb window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pb chunked-d128 'chunked(384)' --seq 4000 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 \
  --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pb prefix-d64 'or(causal,prefix(700))' --seq 3000 --batch 2 --heads 8 --kv-heads 4 --head-dim 64 \
  --dtype bf16 --softcap 30 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pb window-sinks-d128 'and(causal,or(window(300),sinks(4)))' --seq 5000 --heads 4 --kv-heads 2 \
  --head-dim 128 --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_checks /tmp/pb
for pid in "${pids[@]}"; do wait "$pid"; done
ab_el "extra checks done"
ab_save
ab_el "backward rounds"
AB_PASS=bwd AB_DEADLINE=${ROUNDS_UNTIL:-420} ab_rounds 3 /tmp/pm main /tmp/pb bspans docs64-32k-d128 docs8-8k-d128 \
  docs8-16k-d128 window1024-16k-d128 causal-8k-d128 "gqa-32k-d128|--kv-heads 8" docs64-32k-d64 docs8-8k-d64 \
  window1024-16k-d64 causal-8k-d64
grep -ho '"kernel": *"[^"]*"' "$ab_res"/ab/bspans-*-r1.jsonl | sort | uniq -c
ab_save
if (( $(date +%s) - ab_t0 < ${FRONTIER_UNTIL:-480} )); then
  ab_el "issue 12: frontier table, one round, main as landed"
  cp bench/gpu/frontier-table.sh bench/gpu/frontier_table.py bench/gpu/specs-lib.sh bench/gpu/varlen_peers.py \
    bench/gpu/ragged_rows.py /tmp/pm/
  OUT="$ab_res" FT_ROUNDS=1 timeout -k 5 $(( 585 - ($(date +%s) - ab_t0) )) /tmp/pm/frontier-table.sh \
    > "$ab_res/frontier.out" 2>&1
  echo "frontier-table rc=$?"
  cat "$ab_res/frontier/table.txt"
  ab_save
fi
ab_el done
