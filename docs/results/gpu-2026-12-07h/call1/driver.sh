#!/usr/bin/env bash
# Forty-fifth session, call 1: row spans for the persistent forward's PARTIAL tiles (the seventeenth session's
# spans-smem kernels, re-applied to main as branch spans-lane0), with each warp's span words read from shared memory
# by its lane 0 alone and handed to the lanes by shuffles, so that the one thread that releases a K stage for its warp
# is the only one that read the stage's spans (racecheck reported the other lanes' reads when every lane loaded its own
# word). Against main's real build, same harness.
#  1. checks of the branch: ab_checks (verifies and sanitizer runs: the forward's padded documents at D = 64 and 128 now
#     take the _spans kernels) plus racecheck / synccheck / memcheck of a forward-only D = 128 documents case, a
#     window tail, a split sink column (no spans: bit tiles) and fp16 documents;
#  2. forward rounds (4, alternating which build goes first) on issue 12's D = 128 rows and the short rows at D = 64;
#     which kernel each row ran is in the results' "kernel" field.
# Carry .gpupack (var/both.tar.xz: main's walkvote.fatbin and the branch's spans.fatbin; var/engine.jar: main's engine
# jar; var/spans-engine.jar: the branch's).
#   bash docs/results/gpu-2026-12-07h/call1/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init spans
xz -dc .gpupack/var/both.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin /tmp/spans.fatbin .gpupack/var/engine.jar .gpupack/var/spans-engine.jar
ab_pack /tmp/pm /tmp/walkvote.fatbin main "$ab_root/.gpupack/var/engine.jar"
ab_pack /tmp/ps /tmp/spans.fatbin spanslane0 "$ab_root/.gpupack/var/spans-engine.jar"
pids=()
docs='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
f128=(--seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd --block 128x128)
ab_san /tmp/ps fwd-d128-docs racecheck "$docs" "${f128[@]}" & pids+=($!)
ab_san /tmp/ps fwd-d128-docs synccheck "$docs" "${f128[@]}" & pids+=($!)
ab_san /tmp/ps fwd-d128-docs memcheck "$docs" "${f128[@]}" & pids+=($!)
ab_san /tmp/ps fwd-d128-window-fp16 racecheck 'window(700)' --seq 5000 --heads 4 --kv-heads 2 --head-dim 128 \
  --dtype fp16 --softcap 30 --pass fwd --block 128x128 & pids+=($!)
b=(--block 128x128 --pass fwd,bwd)
ab_verify /tmp/ps window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ps chunked-d128 'chunked(384)' --seq 4000 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 \
  --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ps prefix-d64 'or(causal,prefix(700))' --seq 3000 --batch 2 --heads 8 --kv-heads 4 --head-dim 64 --dtype bf16 \
  --softcap 30 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/ps sinks-split-d128 'or(window(256),sinks(4))' --seq 16384 --heads 4 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --rows 16 "${b[@]}" & pids+=($!)
ab_checks /tmp/ps
for pid in "${pids[@]}"; do wait "$pid"; done
ab_el "extra checks done"
for f in "$ab_res"/verify/ps-*.log; do grep -o 'fwd_wgmma[a-z]*_[a-z0-9_]*' "$f" | sort -u | tr '\n' ' '; echo " <- $f"; done
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
