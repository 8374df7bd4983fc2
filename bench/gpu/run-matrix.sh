#!/usr/bin/env bash
# saw verify over the issue-3 matrix (every mask kind, Sq = Skv in {1000, 4096, 8192} and Sq != Skv, D 64/128,
# bf16/fp16, GQA 4:1, softcap on/off, all six tile pairs; forward and backward), then compute-sanitizer memcheck and
# racecheck on a small case (mma.sync kernels), and on a Hopper GPU memcheck, racecheck and synccheck on the
# warp-specialised backward. Runs from a folder made by bench/gpu-pack.sh. Logs go to ${OUT:-.}/matrix.log.
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
  started=$SECONDS
  # TOOL LABEL JAVA-OPTION|'' verify-args...: one compute-sanitizer run; prints its ERROR / RACECHECK SUMMARY lines
  sanitize() {
    local tool=$1 label=$2 opt=$3 out rc; shift 3
    out=$(timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$here/runtime/bin/java" ${opt:+"$opt"} \
          -cp "$here/lib/*" saw.app.Main "$@" 2>&1); rc=$?
    { echo "== compute-sanitizer $tool $label"; echo "$out"; } >>"$log"
    echo "compute-sanitizer $tool $label: rc=$rc $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | paste -sd ' ')"
  }
  small=(verify 'and(causal,docs(100,200))' --seq 320 --heads 2 --kv-heads 1 --head-dim 64 --dtype bf16)
  for tool in memcheck racecheck; do
    for block in 128x64 64x128; do sanitize $tool "block $block" '' "${small[@]}" --block $block; done
  done
  # The Hopper kernels need 128x128 tiles (other tiles fall back to mma.sync). Backward wgmma-ws (the forward is the
  # default family): documents end at 2400, so rows 2400-2599 attend nothing, and the last q-tile is partial
  # (2600 = 20 x 128 + 40); GQA 2:1 gives the first kv column 13 q-tiles x 2 steps x 2 heads = 52 steps, so the
  # 3-stage ring wraps 17 times.
  if [[ $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1) == 9.0 ]]; then
    hopper=(verify 'and(causal,docs(1600,500,300))' --seq 2600 --heads 2 --kv-heads 1 --head-dim 128 --dtype bf16
            --block 128x128 --pass fwd,bwd)
    for tool in memcheck racecheck synccheck; do
      sanitize $tool "Hopper bwd wgmma-ws" -Dsaw.kernel.bwd=wgmma-ws "${hopper[@]}"
    done
  else
    echo "compute-sanitizer on the Hopper backward skipped (not a compute capability 9.0 GPU)"
  fi
  echo "compute-sanitizer section: $((SECONDS - started)) s"
else
  echo "compute-sanitizer not found"
fi
