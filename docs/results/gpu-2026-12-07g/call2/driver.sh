#!/usr/bin/env bash
# Forty-fourth session, call 2. Call 1 found dq-finish correct but its backward 0.62-0.92x main, the loss largest
# where q tiles have few columns. Three builds of the branch (all with call 1's engine jar, fin-engine.jar) against
# main, to find where the time went and whether the fix recovers it:
#   lag    - the tiles handed to the finisher two steps after their add (no wait for an add's completion on the
#            consumers' path) and six rows in flight per lane in the finisher's conversion (the candidate);
#   noconv - lag, but the finisher only counts (diagnostic: dQ is left unconverted, its numbers are timing only);
#   idle   - three loader warps and an idle finisher, nothing handed over (diagnostic: dQ unconverted; what the
#            loaders' fourth warp costs).
# 1. checks of lag: verifies at D = 128 (GQA documents, causal 16K, a split sink column, fp16, random blocks, a
#    sequence ending inside a q tile's second half) and compute-sanitizer on the padded documents (racecheck,
#    memcheck, synccheck) and causal bf16 (racecheck);
# 2. two rounds of saw bench on five D = 128 rows, the four builds rotating which goes first;
# 3. each kernel's duration in one backward of window 1024 and causal 8K for lag (Nsight Compute, time only).
# Carry .gpupack (var/four.tar.xz: main's walkvote.fatbin and lag, noconv, idle .fatbin; var/engine.jar: main's
# engine jar; var/fin-engine.jar: the branch's).
#   bash docs/results/gpu-2026-12-07g/call2/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init lag
xz -dc .gpupack/var/four.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin /tmp/lag.fatbin /tmp/noconv.fatbin /tmp/idle.fatbin .gpupack/var/*.jar
ab_pack /tmp/pm /tmp/walkvote.fatbin main "$ab_root/.gpupack/var/engine.jar"
for v in lag noconv idle; do ab_pack /tmp/p$v /tmp/$v.fatbin "$v" "$ab_root/.gpupack/var/fin-engine.jar"; done
pids=()
docs='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
pad=("$docs" --seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd,bwd --block 128x128)
for tool in racecheck memcheck synccheck; do ab_san /tmp/plag d128-padded $tool "${pad[@]}" & pids+=($!); done
ab_san /tmp/plag d128-causal-bf16 racecheck causal --seq 3000 --heads 4 --kv-heads 2 --head-dim 128 --dtype bf16 \
  --pass fwd,bwd --block 128x128 & pids+=($!)
b=(--block 128x128 --pass fwd,bwd)
ab_verify /tmp/plag docs-gqa-d128 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --batch 4 --heads 16 \
  --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/plag causal-16k-d128 causal --seq 16384 --heads 16 --kv-heads 8 --head-dim 128 --dtype bf16 --rows 16 \
  "${b[@]}" & pids+=($!)
ab_verify /tmp/plag sinks-split-d128 'or(window(256),sinks(4))' --seq 16384 --heads 4 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --rows 16 "${b[@]}" & pids+=($!)
ab_verify /tmp/plag causal-fp16-d128 causal --seq 5000 --batch 2 --heads 8 --kv-heads 4 --head-dim 128 --dtype fp16 \
  --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/plag random-d128 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/plag window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
ab_el "checks done"
ab_save
AB_DEADLINE=200 ab_rounds_multi 2 "/tmp/pm:main /tmp/plag:lag /tmp/pnoconv:noconv /tmp/pidle:idle" \
  window1024-16k-d128 causal-8k-d128 causal-16k-d128 docs64-32k-d128 docs8-16k-d128
cat "$ab_res/ab/table.txt"
for sp in window1024-16k causal-8k; do
  SAW_JAVA_OPTS=-Xmx24g timeout -k 5 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw \
    /tmp/plag/saw bench "$ab_res/specs/$sp.json" --block 128x128 --head-dim 128 --pass bwd --reps 1 --warmup 1 \
    --backend gpu --out "$ab_res/split-lag-$sp.jsonl" > "$ab_res/split-lag-$sp.csv" 2>"$ab_res/split-lag-$sp.err"
  echo "split lag $sp rc=$?"
  python3 - "$ab_res/split-lag-$sp.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if rows:
    head = rows[0]; k = head.index("Kernel Name"); t = head.index("gpu__time_duration.sum")
    for r in rows[2:]:
        print(f"  {r[k][:60]:60} {r[t]:>12}")
PY
done
ab_save
ab_el done
