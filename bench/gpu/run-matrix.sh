#!/usr/bin/env bash
# saw verify over the issue-3 matrix (every mask kind, Sq = Skv in {1000, 4096, 8192} and Sq != Skv, D 64/128,
# bf16/fp16, GQA 4:1, softcap on/off, all six tile pairs; forward and backward), then compute-sanitizer memcheck and
# racecheck on a small case. Runs from a folder made by bench/gpu-pack.sh. Logs go to ${OUT:-.}/matrix.log.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=${OUT:-$here}/matrix.log
: >"$log"
pass=0; fail=0; failed=()
run() {
  local out rc
  out=$(timeout 90 "$here/saw" verify "$@" 2>&1); rc=$?
  echo "$out" >>"$log"; echo "rc=$rc" >>"$log"
  if [[ $rc == 0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$*"); fi
  printf '%-4s %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$*"
  [[ $rc == 0 ]] || echo "$out" | tail -8
}
#   mask                                     sizes                               D   dtype tile    heads        extra
run causal                                   --seq 1000                          --head-dim 128 --dtype bf16 --block 128x64  --heads 4
run 'window(256)'                            --seq 4096                          --head-dim 64  --dtype fp16 --block 64x32   --heads 4 --kv-heads 1
run 'docs(700,1500,1200,500)'                --seq 4096                          --head-dim 128 --dtype bf16 --block 128x128 --heads 2 --softcap 30
run 'chunked(512)'                           --seq 1000                          --head-dim 64  --dtype bf16 --block 64x64   --heads 4 --batch 2
run 'or(global(16),window(128,128))'         --seq 1000                          --head-dim 128 --dtype fp16 --block 64x128  --heads 8 --kv-heads 2
run 'dilated(3)'                             --seq 1000                          --head-dim 64  --dtype fp16 --block 128x32  --heads 2 --softcap 20
run 'random(128,128,4,7)'                    --seq 4096                          --head-dim 128 --dtype fp16 --block 128x128 --heads 4 --kv-heads 1
run 'or(sinks(16),and(causal,not(window(300))))' --seq 1000 --seq-kv 1500         --head-dim 64  --dtype bf16 --block 64x64   --heads 2
run 'heads(causal,window(128),docs(300,400))' --seq 1000                         --head-dim 128 --dtype fp16 --block 128x64  --heads 6
run 'causal(3096)'                           --seq 1000 --seq-kv 4096            --head-dim 128 --dtype fp16 --block 64x64   --heads 2
run 'window(256)'                            --seq 1000 --seq-kv 700             --head-dim 64  --dtype bf16 --block 128x128 --heads 2 --softcap 10
run causal                                   --seq 8192                          --head-dim 128 --dtype bf16 --block 128x64  --heads 2
run 'and(causal,docs(3000,2000,1000,1500))'  --seq 8192                          --head-dim 64  --dtype fp16 --block 64x128  --heads 8 --kv-heads 2
run 'window(256)'                            --seq 8192                          --head-dim 128 --dtype bf16 --block 128x32  --heads 1 --softcap 30
echo "verify matrix: $pass passed, $fail failed" | tee -a "$log"
for f in "${failed[@]}"; do echo "  failed: $f"; done

if [[ -n ${SAW_SKIP_SANITIZER:-} ]]; then
  echo "compute-sanitizer skipped (SAW_SKIP_SANITIZER is set)"
elif command -v compute-sanitizer >/dev/null; then
  small=(verify 'and(causal,docs(100,200))' --seq 320 --heads 2 --kv-heads 1 --head-dim 64 --dtype bf16)
  for tool in memcheck racecheck; do
    for block in 128x64 64x128; do
      out=$(timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 "$here/runtime/bin/java" -cp "$here/lib/*" saw.app.Main \
            "${small[@]}" --block $block 2>&1); rc=$?
      echo "$out" >>"$log"
      echo "compute-sanitizer $tool block $block: rc=$rc $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
    done
  done
else
  echo "compute-sanitizer not found"
fi
