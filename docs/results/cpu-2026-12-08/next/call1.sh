#!/usr/bin/env bash
# Forty-ninth session, prepared and not run (no device was lent): the checks of dq-colend (dq-colend.patch; kernel
# notes, "dQ finished at column ends"), its SASS, and one backward's kernel durations, in one call of at most 600 s.
# From the repository root with .gpc made by prepare.sh (carry [".gpc"]):
#   bash docs/results/cpu-2026-12-08/next/call1.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
# 1. SASS of the D = 128 backward in both builds: the main loop's opcode counts (ptxas -v here reported 224 bytes of
#    stack and 378 bytes of spill stores in dq-colend's, none in main's; if STL / LDL show in the step loop, the
#    rounds of call2.sh measure the spills as much as the finishing);
# 2. ab_checks on /tmp/pc (the D = 128 checks there take the new path; a checked backward runs twice, the second on
#    the accumulator and counters the first left), memcheck / synccheck / racecheck of padded documents at D = 128
#    (columns of 1-3 steps, q tiles whose last rows pass Sq, GQA), and verifies where the column end's later rounds
#    run (columns past 128 steps: causal 20K, GQA 4), a split sink column, fp16, random blocks, a sequence that ends
#    inside a q tile's second 64 rows, and one with SAW_KERNEL_DQ=launch;
# 3. kernel durations (Nsight Compute, time only) of one backward of window 1024 and of 64 documents, all three packs.
. docs/results/cpu-2026-12-08/next/common.sh colend1
ab_el "SASS"
ab_sass bwd_wgmmaws_bf16_d128_q128_kv128 /tmp/colend/main.fatbin /tmp/colend/colend.fatbin
for f in main colend; do
  echo "$f: STL $(grep -c 'STL' "$ab_res/sass/bwd_wgmmaws_bf16_d128_q128_kv128-$f.sass") LDL" \
    "$(grep -c 'LDL' "$ab_res/sass/bwd_wgmmaws_bf16_d128_q128_kv128-$f.sass") in the whole kernel"
done
pids=()
docs='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
d128=(--seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd,bwd --block 128x128)
ab_san /tmp/pc d128-padded memcheck "$docs" "${d128[@]}" & pids+=($!)
ab_san /tmp/pc d128-padded synccheck "$docs" "${d128[@]}" & pids+=($!)
ab_san /tmp/pc d128-causal-bf16 racecheck causal --seq 3000 --heads 4 --kv-heads 2 --head-dim 128 --dtype bf16 \
  --pass fwd,bwd --block 128x128 & pids+=($!)
b=(--block 128x128 --pass fwd,bwd)
ab_verify /tmp/pc long-columns-d128 causal --seq 20480 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --rows 16 \
  "${b[@]}" & pids+=($!)
ab_verify /tmp/pc sinks-split-d128 'or(window(256),sinks(4))' --seq 16384 --heads 4 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --rows 16 "${b[@]}" & pids+=($!)
ab_verify /tmp/pc causal-fp16-d128 causal --seq 5000 --batch 2 --heads 8 --kv-heads 4 --head-dim 128 --dtype fp16 \
  --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pc random-d128 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pc window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pl launch-docs-d128 "$docs" --batch 2 "${d128[@]}" & pids+=($!)
ab_checks /tmp/pc
for pid in "${pids[@]}"; do wait "$pid"; done
ab_el "extra checks done"
ab_save
. "$ab_root/bench/gpu/specs-lib.sh"
frontier_specs "$ab_res/specs"
for pk in pm pl pc; do
  for sp in window1024-16k docs64-32k; do ab_kernel_times /tmp/$pk $sp 128 bwd; done
done
ab_save
ab_el done
