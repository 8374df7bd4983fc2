#!/usr/bin/env bash
# sawmask (python/) on the GPU machine, with torch and jax present: about 3 minutes on an H200 (most of it
# torch.compile of FlexAttention). Checks:
#   1. the python tests with the adapters really running (sawmask.torch on CUDA, sawmask.jax); a skipped adapter
#      test is a failure here. The comparisons with saw.jar skip (no JDK in the pack); CI runs those.
#   2. sawmask.torch.block_mask from saw's flex export (from_kv_blocks) has exactly saw's tiles, and
#      create_block_mask over sawmask's mask_mod agrees with it, for every preset and corner cases (ragged lengths,
#      Sq != Skv, padding, per-head, per-batch, random blocks on a ragged grid, painted).
#   3. FlexAttention with sawmask.torch.mask_mod matches saw's own outputs (saw dump, bf16 tolerance) on corner cases.
# From the repository root, with the pack made by bench/gpu-pack.sh:
#   OUT=/path/out PYTHONPATH=$PWD/python .gpupack/python-bridge.sh
# Logs in $OUT/python-bridge/ (pytest-torch.log, pytest-jax.log, blocks.txt, check.txt); a summary table last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SAW="$here/saw"
ROOT=${SAW_REPO:-$PWD}
PY=${PYTHON:-python3}
LOG=${OUT:-$PWD/out}/python-bridge
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
export XLA_PYTHON_CLIENT_PREALLOCATE=false SAWMASK_TEST_DEVICE=cuda
[[ -x $SAW ]] || { echo "python-bridge: no saw launcher at $SAW (run the copy in the pack)" >&2; exit 2; }
[[ -d $ROOT/python/tests ]] || { echo "python-bridge: $ROOT/python/tests not found; run from the repository root" >&2; exit 2; }
rm -rf "$LOG"; mkdir -p "$LOG"
START=$(date +%s)
step() { echo "[python-bridge $(date -u +%H:%M:%S)] $*" >&2; }
declare -A RESULT

pytest_run() { # NAME FILES...: pytest, then fail on any skipped adapter test
  local name=$1; shift
  step "pytest $name"
  (cd "$ROOT/python" && timeout 150 "$PY" -m pytest -q -rs -p no:cacheprovider "$@") > "$LOG/pytest-$name.log" 2>&1
  local rc=$? summary skipped
  summary=$(grep -E '(passed|failed|error|skipped)' "$LOG/pytest-$name.log" | tail -1)
  skipped=$(grep -E '^SKIPPED \[[0-9]+\] tests/test_(torch|jax)\.py' "$LOG/pytest-$name.log" | grep -vc 'SAW_JAR')
  if [[ $rc == 0 && $skipped == 0 ]]; then RESULT[$name]="ok: $summary"
  else RESULT[$name]="FAIL (rc=$rc, $skipped adapter tests skipped): $summary"; fi
}
pytest_run torch tests/test_core.py tests/test_torch.py
pytest_run jax tests/test_jax.py

step "block masks: presets and corner cases against saw's flex export"
timeout 120 "$PY" "$ROOT/bench/python_bridge_check.py" blocks --saw "$SAW" --work "$LOG/blocks" --root "$ROOT" \
  > "$LOG/blocks.txt" 2>&1
rc=$?
RESULT[blocks]="$([[ $rc == 0 ]] && echo ok || echo "FAIL (rc=$rc)"): $(grep -c '^ok' "$LOG/blocks.txt") ok, $(grep -c '^FAIL' "$LOG/blocks.txt") failed, $(grep -c '^SKIP' "$LOG/blocks.txt") skipped"
rm -f "$LOG"/blocks/*.flex.json

step "FlexAttention with sawmask's mask_mod against saw's outputs"
"$PY" "$ROOT/bench/python_bridge_check.py" dumps --saw "$SAW" --work "$LOG/dump-configs"
n=0
for c in ragged_docs:fwd Sq_Skv_causal_bottom_right:fwd padding_q_kv_ids:fwd per_head:bwd per_batch_documents:fwd; do
  name=${c%:*}; pass=${c#*:}
  "$SAW" dump "$LOG/dump-configs/$name.json" --head-dim 128 --dtype bf16 --backend gpu --seed 1 --pass "$pass" \
    --out "$LOG/dumps/$name" >> "$LOG/saw-dump.log" 2>&1 && n=$((n + 1)) || step "saw dump $name failed (saw-dump.log)"
done
timeout 150 "$PY" "$ROOT/bench/compare_flex.py" check "$LOG"/dumps/*/ --out "$LOG/check.json" > "$LOG/check.txt" 2>&1
rc=$?
RESULT[outputs]="$([[ $rc == 0 && $n == 5 ]] && echo ok || echo "FAIL (rc=$rc, $n of 5 dumped)"): $(grep -c ': ok' "$LOG/check.txt") within tolerance, $(grep -c 'FAILED' "$LOG/check.txt") not"
rm -rf "$LOG/dumps"

step "done in $(( $(date +%s) - START )) s"
grep -E '^(FAIL|SKIP)' "$LOG/blocks.txt"; grep FAILED "$LOG/check.txt"
printf '\n%-8s %s\n' check result
for k in torch jax blocks outputs; do printf '%-8s %s\n' "$k" "${RESULT[$k]}"; done
[[ "${RESULT[*]}" != *FAIL* ]]
