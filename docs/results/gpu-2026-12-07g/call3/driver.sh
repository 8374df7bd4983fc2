#!/usr/bin/env bash
# Forty-fourth session, call 3. Call 2 (H100): against main, idle (three loaders, nothing handed over, dQ left
# unconverted) 1.01-1.23x on the backward, the bound of what removing the conversion and the fill can give; noconv
# (the hand-over and counting, no conversion) 0.92-1.11x; lag (with the conversion) 0.58-0.87x. Suspects: the
# finisher polling the ring with 32 shared-memory atomics every 64 ns, and the consumers' proxy fence per hand-over.
# Three builds with call 1's engine jar:
#   sleep       - lag with the finisher sleeping 1 us (not 64 ns) between empty polls (the candidate);
#   nofence     - sleep without the consumers' fence.proxy.async.global on the usual hand-over (diagnostic only);
#   sleepnoconv - sleep, the finisher only counting (diagnostic: dQ left unconverted).
# 1. checks of sleep (verifies at D = 128, racecheck and memcheck on the padded documents);
# 2. two rounds of saw bench on five D = 128 rows, the builds rotating which goes first.
# Carry .gpupack (var/sleep.tar.xz: main's walkvote.fatbin and the three builds; var/engine.jar, var/fin-engine.jar).
#   bash docs/results/gpu-2026-12-07g/call3/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init sleep
xz -dc .gpupack/var/sleep.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin /tmp/sleep.fatbin /tmp/nofence.fatbin /tmp/sleepnoconv.fatbin .gpupack/var/*.jar
ab_pack /tmp/pm /tmp/walkvote.fatbin main "$ab_root/.gpupack/var/engine.jar"
for v in sleep nofence sleepnoconv; do ab_pack /tmp/p$v /tmp/$v.fatbin "$v" "$ab_root/.gpupack/var/fin-engine.jar"; done
pids=()
docs='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
pad=("$docs" --seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd,bwd --block 128x128)
for tool in racecheck memcheck; do ab_san /tmp/psleep d128-padded $tool "${pad[@]}" & pids+=($!); done
b=(--block 128x128 --pass fwd,bwd)
ab_verify /tmp/psleep docs-gqa-d128 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --batch 4 \
  --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 "${b[@]}" & pids+=($!)
ab_verify /tmp/psleep causal-16k-d128 causal --seq 16384 --heads 16 --kv-heads 8 --head-dim 128 --dtype bf16 \
  --rows 16 "${b[@]}" & pids+=($!)
ab_verify /tmp/psleep sinks-split-d128 'or(window(256),sinks(4))' --seq 16384 --heads 4 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --rows 16 "${b[@]}" & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
ab_el "checks done"
ab_save
AB_DEADLINE=200 ab_rounds_multi 2 "/tmp/pm:main /tmp/psleep:sleep /tmp/pnofence:nofence /tmp/psleepnoconv:sleepnoconv" \
  window1024-16k-d128 causal-8k-d128 causal-16k-d128 docs64-32k-d128 docs8-16k-d128
ab_save
ab_el done
