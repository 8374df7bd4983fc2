#!/usr/bin/env bash
# Forty-fifth session, call 2: the second version of the row spans (branch spans-lane0). Call 1's version (lane 0 of
# each warp reads the warp's span words, shuffles hand them out; correct, racecheck clean) ran 1.02-1.05x on documents
# and 0.97-0.98x where few tiles are PARTIAL (causal, GQA, window). Two changes: only PARTIAL tiles store spans and
# complete a phase of their stage's barrier (each side keeps a stage's parity, RingAt::spanPhases), so FULL tiles wait
# for nothing more than before; and a tile's span is read after the turn is passed (where the bit-tile kernels load
# their bits), no longer between the K/V waits and the next Q K^T issue.
#  1. checks of the build: ab_checks plus racecheck / synccheck / memcheck of a forward-only D = 128 documents case,
#     racecheck of an fp16 softcapped window and of D = 64 prefix-LM rows, and verifies of a window tail, chunks, a
#     prefix LM and a split sink column (bit tiles);
#  2. forward rounds (4, alternating which build goes first) against main on issue 12's D = 128 rows and the short rows
#     at D = 64; which kernel each row ran is in the results' "kernel" field.
# Carry .gpupack (var/both.tar.xz: main's walkvote.fatbin and this build's spans2.fatbin; var/engine.jar: main's engine
# jar; var/spans-engine.jar: the branch's, whose host code is call 1's).
#   bash docs/results/gpu-2026-12-07h/call2/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init spans2
xz -dc .gpupack/var/both.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin /tmp/spans2.fatbin .gpupack/var/engine.jar .gpupack/var/spans-engine.jar
ab_pack /tmp/pm /tmp/walkvote.fatbin main "$ab_root/.gpupack/var/engine.jar"
ab_pack /tmp/ps /tmp/spans2.fatbin spanslane0v2 "$ab_root/.gpupack/var/spans-engine.jar"
pids=()
docs='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
f128=(--seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd --block 128x128)
ab_san /tmp/ps fwd-d128-docs racecheck "$docs" "${f128[@]}" & pids+=($!)
ab_san /tmp/ps fwd-d128-docs synccheck "$docs" "${f128[@]}" & pids+=($!)
ab_san /tmp/ps fwd-d128-docs memcheck "$docs" "${f128[@]}" & pids+=($!)
ab_san /tmp/ps fwd-d128-window-fp16 racecheck 'window(700)' --seq 5000 --heads 4 --kv-heads 2 --head-dim 128 \
  --dtype fp16 --softcap 30 --pass fwd --block 128x128 & pids+=($!)
ab_san /tmp/ps fwd-d64-prefix racecheck 'or(causal,prefix(700))' --seq 3000 --batch 2 --heads 8 --kv-heads 4 \
  --head-dim 64 --dtype bf16 --pass fwd --block 128x128 & pids+=($!)
b=(--block 128x128 --pass fwd,bwd)
ab_verify /tmp/ps window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ps chunked-d128 'chunked(384)' --seq 4000 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 \
  --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ps prefix-d64 'or(causal,prefix(700))' --seq 3000 --batch 2 --heads 8 --kv-heads 4 --head-dim 64 \
  --dtype bf16 --softcap 30 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ps sinks-split-d128 'or(window(256),sinks(4))' --seq 16384 --heads 4 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --rows 16 "${b[@]}" & pids+=($!)
ab_checks /tmp/ps
for pid in "${pids[@]}"; do wait "$pid"; done
ab_el "extra checks done"
ab_save
ab_el "forward rounds"
. bench/gpu/specs-lib.sh
frontier_specs "$ab_res/specs"
rows=(docs64-32k-d128 docs8-8k-d128 docs8-16k-d128 window1024-16k-d128 causal-8k-d128 "gqa-32k-d128|--kv-heads 8"
  docs64-32k-d64 docs8-8k-d64 window1024-16k-d64 causal-8k-d64)
packs=(/tmp/pm:main /tmp/ps:spans)
for r in 1 2 3 4; do
  for row in "${rows[@]}"; do
    IFS='|' read -r sp extra <<<"$row"
    for i in 0 1; do
      b=${packs[$(( (r - 1 + i) % 2 ))]}
      # shellcheck disable=SC2086
      timeout -k 5 120 "${b%%:*}/saw" bench "$ab_res/specs/${sp%-d*}.json" --block 128x128 --head-dim "${sp##*-d}" \
        --pass fwd --reps 10 --warmup 3 --backend gpu --out "$ab_res/ab/${b##*:}-$sp-r$r.jsonl" $extra \
        >>"$ab_res/ab/bench.log" 2>&1 || echo "bench ${b##*:} $sp r$r rc=$?"
    done
  done
  ab_el "round $r done"
  (( $(date +%s) - ab_t0 < 470 )) || { ab_el "deadline: stopping after round $r"; break; }
done
python3 bench/ab_table.py "$ab_res/ab" main spans | tee "$ab_res/ab/table.txt"
python3 bench/ab_table.py --summary "$ab_res/ab" main spans | tee "$ab_res/ab/summary.txt"
grep -ho '"kernel": *"[^"]*"' "$ab_res"/ab/spans-*-r1.jsonl | sort | uniq -c
ab_save
ab_el done
