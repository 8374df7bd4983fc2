#!/usr/bin/env bash
# Twentieth session, call 2: the build that lands (persist-bwd merged with the retired families; the persistent
# forward's row ring and Q buffers released by every consumer thread, as the backward's column ring is). sm_90a-only
# fatbin with -lineinfo in the pack's engine jar. 1. compute-sanitizer on the cases of call 1 (racecheck there reported
# the forward's row ring: lane 0 arrived for its warp) and on the ws forward at D = 64; 2. verify beside them (11 cases with many
# columns per CTA, split, empty and padded columns, then bwd-frontier.sh's matrix if time is left). Issue 12's rows
# were left out: the session had under 10 device-minutes left after call 1's hang and refused starts. Work files in
# /tmp/c2, returned as $OUT/c2-logs.tgz (+ driver.log).
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=/tmp/c2
mkdir -p "$res/san" "$res/verify"
exec > >(tee "$OUT/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
pack_logs() { tar czf "$OUT/c2-logs.tgz" -C /tmp --exclude=c2/frontier/specs --exclude=c2/bwd/specs c2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1

el "1. sanitizers"
san() { # NAME TOOL MASK ARGS...
  local name=$1 tool=$2 mask=$3; shift 3
  local extra="" rc
  [[ $tool == racecheck ]] && extra="--racecheck-report all"
  timeout -k 5 120 compute-sanitizer --tool "$tool" $extra --print-limit 40 --error-exitcode 9 "$pack/runtime/bin/java" \
    -Djava.awt.headless=true ${JOPTS:-} -cp "$pack/lib/*" saw.app.Main verify "$mask" "$@" --block 128x128 --backend gpu \
    > "$res/san/$name-$tool.log" 2>&1; rc=$?
  echo "$name $tool rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san/$name-$tool.log" | tail -1)"
}
DOCS='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
pids=()
throttle() { while [[ $(jobs -rp | wc -l) -ge 6 ]]; do sleep 0.2; done; }
for tool in racecheck synccheck memcheck; do
  throttle; san d64-padded $tool "$DOCS" --seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --scale 1 --pass fwd,bwd & pids+=($!)
  throttle; san d128-padded $tool "$DOCS" --seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd,bwd & pids+=($!)
done
throttle; san d64-window racecheck 'window(100)' --seq 1000 --seq-kv 5000 --batch 4 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --softcap 20 --pass fwd,bwd & pids+=($!)
throttle; san d128-causal racecheck causal --seq 5000 --heads 8 --kv-heads 8 --head-dim 128 --dtype fp16 --pass fwd,bwd & pids+=($!)
# the ws forward (not the default) reads Q with ldmatrix at D = 64 and now releases it from every thread
throttle; JOPTS=-Dsaw.kernel.fwd=wgmma-ws san d64-padded-fwdws racecheck "$DOCS" --seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --pass fwd & pids+=($!)
el "2. verify, beside the sanitizers"
vfail=0
verify() { # NAME ARGS...
  local name=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx24g" timeout -k 5 100 "$pack/saw" verify "$@" --backend gpu --block 128x128 2>&1); rc=$?
  { echo "== verify $name $*"; echo "$out"; echo "rc=$rc"; } > "$res/verify/$name.log"
  echo "verify $name rc=$rc :: $(echo "$out" | awk '$1=="O"||$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}')"
  return $rc
}
vp=()
vthrottle() { while [[ $(jobs -rp | wc -l) -ge 9 ]]; do sleep 0.2; done; }
V() { vthrottle; verify "$@" & vp+=($!); }
V docs-gqa-d128 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --batch 4 --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 --pass fwd,bwd
V docs-fp16-d64 'and(causal,docs(700,1500,1200,500,3000,77))' --seq 6977 --batch 2 --heads 16 --kv-heads 16 --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd,bwd
V causal-16k-d128 causal --seq 16384 --batch 1 --heads 16 --kv-heads 8 --head-dim 128 --dtype bf16 --rows 16 --pass fwd,bwd
V sinks-split-d128 'or(window(512),sinks(4))' --seq 32768 --batch 1 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --rows 16 --pass fwd,bwd
V sinks-split-d64 'or(window(256),sinks(4))' --seq 16384 --batch 1 --heads 4 --kv-heads 4 --head-dim 64 --dtype fp16 --rows 16 --pass fwd,bwd
V empty-cols-d128 'window(256)' --seq 700 --seq-kv 8192 --batch 2 --heads 16 --head-dim 128 --dtype bf16 --pass fwd,bwd
V empty-cols-d64 'window(100)' --seq 1000 --seq-kv 5000 --batch 4 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --softcap 20 --pass fwd,bwd
V padded-docs-d64 "$DOCS" --seq 6000 --batch 3 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --pass fwd,bwd
V padded-docs-d128 "$DOCS" --seq 6000 --batch 3 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 --pass fwd,bwd
V random-d128 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 --rows 24 --pass fwd,bwd
V chunked-ragged 'chunked(300)' --seq 5001 --batch 3 --heads 8 --kv-heads 4 --head-dim 128 --dtype bf16 --scale 0.7 --pass fwd,bwd
for p in "${vp[@]}"; do wait "$p" || vfail=$((vfail + 1)); done
el "verify failures: $vfail"
wait "${pids[@]}"
el "sanitizers done"
pack_logs
if left 150; then
  OUT=$res BWF_PARTS="verify" timeout -k 5 100 "$pack/bwd-frontier.sh" > "$res/bwd-frontier.out" 2>&1; echo "bwd-frontier rc=$?"
  tail -16 "$res/bwd-frontier.out"
fi

# added in the twenty-first session, which ran this driver: issue 12's rows on the landed build if time is left
if left 330; then
  OUT=$res FT_REPS=10 timeout -k 5 250 "$pack/frontier-table.sh" > "$res/frontier-table.out" 2>&1; echo "frontier-table rc=$?"
  cat "$res/frontier/table.txt" 2>/dev/null
fi
el done
pack_logs
