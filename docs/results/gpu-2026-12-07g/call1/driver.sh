#!/usr/bin/env bash
# Forty-fourth session, call 1: dQ finished inside the D = 128 warp-specialised backward (branch dq-finish:
# attention_bwd_wgmma.cu's DqJobs and finish_dq_tiles; the host skips bwd_dq_perm_* and, once a timed run's
# accumulator is known zero, its fill) against main, same harness.
#  1. checks of the branch: ab_checks (18 verifies and sanitizer runs; the D = 128 ones without softcap take the new
#     path, and a checked backward now runs twice, the second on the accumulator and counters the first left), plus
#     memcheck and synccheck of the D = 128 padded documents, and verifies of a split sink column, fp16, random blocks
#     and a sequence that ends inside a q tile's second 64 rows, all at D = 128;
#  2. four rounds of saw bench (forward and backward) on issue 12's D = 128 rows and causal 8K at D = 64, alternating
#     which build goes first;
#  3. each kernel's duration in one backward of window 1024 and causal 8K, both builds (Nsight Compute, time only).
# Carry .gpupack (var/both.tar.xz: main's fatbin and the branch's, one archive; var/engine.jar: main's engine jar;
# var/fin-engine.jar: the branch's).
#   bash docs/results/gpu-2026-12-07g/call1/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init fin
xz -dc .gpupack/var/both.tar.xz | tar xf - -C /tmp  # main's walkvote.fatbin and the branch's fin.fatbin
sha256sum /tmp/walkvote.fatbin /tmp/fin.fatbin .gpupack/var/engine.jar .gpupack/var/fin-engine.jar
ab_pack /tmp/pm /tmp/walkvote.fatbin main "$ab_root/.gpupack/var/engine.jar"
ab_pack /tmp/pf /tmp/fin.fatbin dqfinish "$ab_root/.gpupack/var/fin-engine.jar"
pids=()
docs='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
ab_san /tmp/pf d128-padded memcheck "$docs" --seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 \
  --pass fwd,bwd --block 128x128 & pids+=($!)
ab_san /tmp/pf d128-padded synccheck "$docs" --seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 \
  --pass fwd,bwd --block 128x128 & pids+=($!)
ab_san /tmp/pf d128-causal-bf16 racecheck causal --seq 3000 --heads 4 --kv-heads 2 --head-dim 128 --dtype bf16 \
  --pass fwd,bwd --block 128x128 & pids+=($!)
b=(--block 128x128 --pass fwd,bwd)
ab_verify /tmp/pf sinks-split-d128 'or(window(256),sinks(4))' --seq 16384 --heads 4 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --rows 16 "${b[@]}" & pids+=($!)
ab_verify /tmp/pf causal-fp16-d128 causal --seq 5000 --batch 2 --heads 8 --kv-heads 4 --head-dim 128 --dtype fp16 \
  --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pf random-d128 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/pf window-tail-d128 'window(1024)' --seq 8250 --batch 2 --heads 8 --kv-heads 8 --head-dim 128 \
  --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_checks /tmp/pf
for pid in "${pids[@]}"; do wait "$pid"; done
ab_el "extra checks done"
ab_save
ab_el "rounds"
AB_DEADLINE=330 ab_rounds 4 /tmp/pm main /tmp/pf fin window1024-16k-d128 docs8-16k-d128 docs8-8k-d128 \
  causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs64-32k-d128 causal-8k-d64
for pk in pm pf; do
  for sp in window1024-16k causal-8k; do
    SAW_JAVA_OPTS=-Xmx24g timeout -k 5 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw \
      /tmp/$pk/saw bench "$ab_res/specs/$sp.json" --block 128x128 --head-dim 128 --pass bwd --reps 1 --warmup 1 \
      --backend gpu --out "$ab_res/split-$pk-$sp.jsonl" > "$ab_res/split-$pk-$sp.csv" 2>"$ab_res/split-$pk-$sp.err"
    echo "split $pk $sp rc=$?"
    python3 - "$ab_res/split-$pk-$sp.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if rows:
    head = rows[0]; k = head.index("Kernel Name"); t = head.index("gpu__time_duration.sum")
    for r in rows[2:]:
        print(f"  {r[k][:60]:60} {r[t]:>12}")
PY
  done
done
ab_save
ab_el done
