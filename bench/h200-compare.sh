#!/usr/bin/env bash
# saw against FlexAttention and cuDNN on one GPU, in one run (issue 4's table): B=4, H=16, D=128 and 64, bf16,
# S=8192 and 16384; causal, sliding window 1024, 8 packed documents (causal), random blocks at 5-100%; forward and
# backward. Run it from the repository root on the GPU machine:
#
#   bench/h200-compare.sh [PACK]
#
# PACK is the folder bench/gpu-pack.sh makes (a jlink'd java, the jars and a `saw` launcher; default .gpupack).
# Everything goes under $OUT (default ./h200-out): saw's and the comparison's saw.bench/1 files, the exported
# layouts, the cross-check against saw's outputs, charts, and table.txt, which is also printed last.
# Needs python3 with torch (FlexAttention, cuDNN SDPA) and numpy. Aims at about 6 minutes on an H200.
# Superseded by bench/gpu/flex-compare.sh (more rows, FlexAttention default and max-autotune); kept to rerun the
# issue-4 rows (FlexAttention now with sawmask's closed-form mask_mods, default compile mode only).
set -uo pipefail

PACK=${1:-${SAW_PACK:-.gpupack}}
OUT=${OUT:-$PWD/h200-out}
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
SAW=""
for candidate in "$PACK/saw" "$PACK/bin/saw"; do
  if [ -x "$candidate" ]; then SAW=$candidate; break; fi
done
if [ -z "$SAW" ]; then
  echo "h200-compare: no saw launcher in '$PACK' (expected $PACK/saw); build the pack with bench/gpu-pack.sh" >&2
  exit 2
fi

log() { echo "[h200-compare $(date -u +%H:%M:%S)] $*" >&2; }
mkdir -p "$OUT/specs" "$OUT/results" "$OUT/layouts" "$OUT/flex" "$OUT/charts" "$OUT/dumps"
START=$(date +%s)

"$SAW" env > "$OUT/env.txt" 2>&1 || log "saw env failed (see env.txt)"
"$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))" \
  > "$OUT/torch.txt" 2>&1 || log "python3 with torch and a GPU is needed for the comparison (see torch.txt)"

# The configs, per sequence length: documents do not rescale with --seq, so each length gets its own files.
spec() { # NAME S MASK_JSON
  cat > "$OUT/specs/$1-$2.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": 4, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": $3 }
JSON
}
for S in 8192 16384; do
  spec causal "$S" '{ "causal": { "offset": 0 } }'
  spec window-1024 "$S" '{ "sliding_window": { "left": 1024, "right": 0 } }'
  # 8 packed documents of uneven lengths (5, 10, 15, 10, 20, 10, 20 and 10 % of S), causal inside each
  L=""; SUM=0
  for pct in 5 10 15 10 20 10 20; do n=$((S * pct / 100)); L="$L$n, "; SUM=$((SUM + n)); done
  L="$L$((S - SUM))"
  spec docs-8 "$S" "{ \"and\": [ { \"causal\": { \"offset\": 0 } }, { \"documents\": { \"lengths\": [$L] } } ] }"
done

COMMON=(--pass fwd,bwd --batch 4 --heads 16 --kv-heads 16 --head-dim 128,64 --dtype bf16 --backend gpu --reps 20 --warmup 5)
for S in 8192 16384; do
  for C in causal window-1024 docs-8; do
    log "saw bench $C S=$S"
    "$SAW" bench "$OUT/specs/$C-$S.json" --block 128x64,128x128 "${COMMON[@]}" \
      --out "$OUT/results/saw-$C-$S.json" --export-flex "$OUT/layouts/$C-$S" 2>> "$OUT/saw-bench.log" \
      || log "saw bench $C S=$S exited $? (see saw-bench.log)"
  done
  log "saw bench random blocks S=$S"
  "$SAW" bench "$OUT/specs/causal-$S.json" --density 0.05,0.1,0.25,0.5,1 --block 128x128 "${COMMON[@]}" \
    --out "$OUT/results/saw-random-$S.json" --export-flex "$OUT/layouts/random-$S" 2>> "$OUT/saw-bench.log" \
    || log "saw bench random S=$S exited $? (see saw-bench.log)"
done
log "saw sweeps done after $(( $(date +%s) - START )) s"

# One seeded input set per config: saw's outputs against FlexAttention's (bf16 tolerance).
if "$SAW" --help 2>/dev/null | grep -E '^ +dump( |$)' >/dev/null; then
  for C in causal window-1024 docs-8; do
    "$SAW" dump "$OUT/specs/$C-8192.json" --seq 8192 --block 128x128 --batch 1 --heads 4 --kv-heads 4 --head-dim 128 \
      --dtype bf16 --backend gpu --seed 1 --out "$OUT/dumps/$C" 2>> "$OUT/saw-dump.log" || log "saw dump $C failed (see saw-dump.log)"
  done
  "$PY" "$HERE/compare_flex.py" check "$OUT"/dumps/*/ --out "$OUT/check.json" > "$OUT/check.txt" 2>&1 \
    || log "the output check found differences or failed (see check.txt)"
else
  echo "saw dump is not in this build; no output cross-check" > "$OUT/check.txt"
fi
rm -rf "$OUT/dumps"  # the tensors are large; check.txt and check.json keep the result

log "FlexAttention and cuDNN on the 128x128 rows"
"$PY" "$HERE/compare_flex.py" run "$OUT"/results/saw-*.json --out-dir "$OUT/flex" --tile 128x128 --modes default \
  2> "$OUT/compare.log" || log "compare_flex.py run exited $? (see compare.log)"

# The charts, as a script that also runs where the full saw.jar is (a GPU pack may not carry the chart libraries):
#   cd OUT && SAW="java -jar /path/to/saw.jar" sh make-charts.sh
cat > "$OUT/make-charts.sh" <<'CHARTS'
#!/bin/sh
# Renders the comparison charts from the results beside this script; SAW is the saw command to use.
cd "$(dirname "$0")" || exit 1
SAW=${SAW:-saw}
mkdir -p charts
for S in 8192 16384; do
  $SAW chart results/saw-random-$S.json flex/flex-saw-random-$S.json --x density --out charts/density-$S.png
  $SAW chart results/saw-causal-$S.json flex/flex-saw-causal-$S.json --x block --out charts/causal-tiles-$S.png
done
$SAW chart results/saw-causal-8192.json results/saw-causal-16384.json \
  flex/flex-saw-causal-8192.json flex/flex-saw-causal-16384.json --x seq --out charts/causal-seq.png
CHARTS
SAW="$SAW" sh "$OUT/make-charts.sh" > /dev/null 2> "$OUT/chart.log" \
  || log "charts not drawn here (see chart.log); run make-charts.sh where the full saw.jar is"

"$PY" "$HERE/compare_flex.py" table "$OUT"/results/saw-*.json "$OUT"/flex/flex-*.json > "$OUT/table.txt" 2>> "$OUT/compare.log"
log "done in $(( $(date +%s) - START )) s; useful TFLOP/s (fwd+bwd: both FLOPs over both medians)"
cat "$OUT/check.txt" 2>/dev/null
cat "$OUT/table.txt"
