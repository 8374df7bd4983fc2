#!/usr/bin/env bash
# The backward's split columns (issue 18; TileLists#colLaunch), about 2 minutes on an H200: saw verify on masks
# whose sink or global columns the plan splits into parts, for every backward family (wgmma-ws, mma.sync at
# D 64/128/256, fp16, softcap, learned sinks, GQA), compute-sanitizer memcheck and racecheck on a small split case
# with the default Hopper backward, then (SPLIT_TIME=1, the default; long-context.sh) forward and backward at 1M tokens (B=1 H=32 Hkv=8 D=128
# bf16, 128x128) for window 4096 + 4 sinks against window 4096 alone: with the split the two should be within a few
# percent (before it: 277 against 387 TFLOP/s). Logs in ${OUT}/split/; a summary last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}/split
mkdir -p "$out"
log=$out/verify.log
: >"$log"
pass=0; fail=0
run() {  # run ENV-ASSIGNMENT|'' verify-args...
  local env=$1 o rc; shift
  o=$(env ${env:+"$env"} timeout 120 "$here/saw" verify "$@" 2>&1); rc=$?
  { echo "== ${env} $*"; echo "$o"; echo "rc=$rc"; } >>"$log"
  if [[ $rc == 0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  printf '%-4s %s %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$env" "$*"
  [[ $rc == 0 ]] || echo "$o" | tail -6
}
sinks='and(causal,or(sinks(4),window(512)))'
global='or(global(40),window(256,256))'
run ''                           "$sinks"  --seq 16384 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --block 128x128
run ''                           "$global" --seq 12000 --heads 4 --kv-heads 1 --head-dim 64  --dtype fp16 --block 128x128 --softcap 30
run ''                           "$sinks"  --seq 8192  --heads 4 --kv-heads 4 --head-dim 128 --dtype bf16 --block 128x128 --sinks
run ''                           "$sinks"  --seq 8192  --heads 4 --kv-heads 2 --head-dim 64  --dtype bf16 --block 64x64
run ''                           "$global" --seq 12000 --heads 2 --kv-heads 1 --head-dim 128 --dtype fp16 --block 128x64 --softcap 20
run ''                           "$sinks"  --seq 8192  --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x32
echo "split verify: $pass passed, $fail failed" | tee "$out/summary.txt"

if command -v compute-sanitizer >/dev/null; then
  small=(verify 'and(causal,or(sinks(4),window(256)))' --seq 4096 --heads 2 --kv-heads 1 --head-dim 128 --dtype bf16
         --block 128x128 --pass fwd,bwd)
  for tool in memcheck racecheck; do
    o=$(timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$here/runtime/bin/java" -cp "$here/lib/*" \
        saw.app.Main "${small[@]}" 2>&1); rc=$?
    { echo "== compute-sanitizer $tool"; echo "$o"; } >>"$out/sanitizer.log"
    echo "compute-sanitizer $tool split case: rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | paste -sd ' ')" \
      | tee -a "$out/summary.txt"
  done
fi

if [[ ${SPLIT_TIME:-1} == 1 ]]; then
  # long-context.sh's specs and table: forward and backward at 1M, no sampled verify (the cases above verified)
  OUT=$out SAW_LONG_SIZES=1048576 SAW_LONG_MASKS="sinks window" SAW_LONG_VERIFY=0 "$here/long-context.sh" \
    | tail -5 | tee -a "$out/summary.txt"
fi
