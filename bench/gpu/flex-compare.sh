#!/usr/bin/env bash
# saw vs FlexAttention (torch.compile default, and mode="max-autotune-no-cudagraphs") vs cuDNN SDPA, forward and
# backward, on one GPU: the successor of issue 4's h200-compare.sh (retired, in git history) with FlexAttention as
# its users write it (closed-form mask_mods from sawmask.torch, each row recording the mask_mod's source text). Run
# time: about 6-8 minutes on an
# H200 for everything (most of it torch.compile: default mode on every row, max-autotune on a representative
# subset, AUTOTUNE_ROWS); it is resumable, so a run cut short continues where it stopped when run again. The default
# mode and cuDNN run on every row before any max-autotune compile, so a run cut short by a time limit (one 10-minute
# device call ended inside the max-autotune rows) still leaves the whole default table.
#
# Rows: B=4 H=16 bf16, D=128 and 64, S=8192 and 16384: causal, sliding window 1024, 8 packed documents (causal),
# random blocks at 5/10/25/50/100 %, prefix-LM (prefix S/4), sliding window 1024 + 4 sinks (causal, StreamingLLM);
# and at S=32768 (B=1, D=128): 64 packed documents (causal, uneven lengths) and GQA 32:8 causal (H=32, 8 kv heads).
# saw runs tiles 128x64 and 128x128 (its best is reported); FlexAttention runs 128x128 BlockMasks from saw's exports.
#
# From the repository root on the GPU machine, with the pack made by bench/gpu-pack.sh:
#   OUT=/path/out PYTHONPATH=$PWD/python .gpupack/flex-compare.sh
# Environment:
#   ROWS=REGEX           only configs whose name matches (names: causal window-1024 docs-8 random prefix-lm
#                        sinks-window docs-64 gqa-32-8), e.g. ROWS='^(causal|docs-64)$'
#   AUTOTUNE_ROWS=REGEX  rows (compare_flex.py labels) that also run max-autotune; default: D=128 at S=16384 for
#                        causal, window-1024, docs-8, random 25 %, prefix-lm and sinks-window, and the two 32K rows.
#                        AUTOTUNE_ROWS=none skips max-autotune.
#   STAGES="saw flex table"  which stages run (default all three); FRESH=1 starts over instead of resuming.
#                        A saw result is kept only with its exported layouts (FlexAttention's inputs) beside it.
#   HEAD_DIMS=128,64     head dims of the B=4 H=16 rows (default both).
# Writes under $OUT/flex-compare/: specs, saw's results and layouts, FlexAttention's and cuDNN's results, the
# output cross-check (check.txt), table.txt and table.md (worst saw/Flex ratio first, with the worst and median
# ratios for fwd and fwd+bwd per Flex mode, ready for docs/benchmarks.md). The table is printed last.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SAW="$here/saw"
ROOT=${SAW_REPO:-$PWD}
PY=${PYTHON:-python3}
COMPARE="$ROOT/bench/compare_flex.py"
OUT_DIR=${OUT:-$PWD/out}/flex-compare
ROWS=${ROWS:-.}
STAGES=${STAGES:-saw flex table}
AUTOTUNE_ROWS=${AUTOTUNE_ROWS:-'^(causal|window-1024|docs-8|prefix-lm|sinks-window) S=16384 D=128 |^random blocks d=0.25 S=16384 D=128 |^(docs-64|gqa-32-8) '}
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
[[ -x $SAW ]] || { echo "flex-compare: no saw launcher at $SAW (run the copy in the pack made by bench/gpu-pack.sh)" >&2; exit 2; }
[[ -f $COMPARE ]] || { echo "flex-compare: $COMPARE not found; run from the repository root (or set SAW_REPO)" >&2; exit 2; }
[[ ${FRESH:-} == 1 ]] && rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"/{specs,results,layouts,flex,dumps}
log() { echo "[flex-compare $(date -u +%H:%M:%S)] $*" | tee -a "$OUT_DIR/run.log" >&2; }
START=$(date +%s)
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }

spec() { # NAME S B H MASK_JSON
  cat > "$OUT_DIR/specs/$1-$2.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 128, "kv": 128 }, "mask": $5 }
JSON
}
lengths() { # S PERCENT... : document lengths at these percentages of S, the last one taking the rest
  local S=$1; shift; local L="" SUM=0 n
  for pct in "$@"; do n=$((S * pct / 100)); L="$L$n, "; SUM=$((SUM + n)); done
  echo "$L$((S - SUM))"
}
CAUSAL='{ "causal": { "offset": 0 } }'
for S in 8192 16384; do
  spec causal "$S" 4 16 "$CAUSAL"
  spec window-1024 "$S" 4 16 '{ "sliding_window": { "left": 1024, "right": 0 } }'
  spec docs-8 "$S" 4 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$(lengths "$S" 5 10 15 10 20 10 20)] } } ] }"
  spec prefix-lm "$S" 4 16 "{ \"prefix_lm\": { \"prefix\": $((S / 4)) } }"
  spec sinks-window "$S" 4 16 "{ \"and\": [ $CAUSAL, { \"or\": [ { \"sinks\": { \"count\": 4 } }, { \"sliding_window\": { \"left\": 1024, \"right\": 0 } } ] } ] }"
done
# 64 packed documents at 32K: lengths cycle through 1, 2, 3 and 4 units (the sum of 64 of them fills 32768)
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
spec docs-64 32768 1 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$L$((32768 - SUM))] } } ] }"
spec gqa-32-8 32768 1 32 "$CAUSAL"

bench() { # NAME S SPEC EXTRA...: one saw bench call, skipped when its results file is already complete
  local name=$1 S=$2 specname=$3; shift 3
  local res="$OUT_DIR/results/saw-$name-$S.json"
  [[ $name =~ $ROWS ]] || return 0
  if [[ -s $res ]] && ! grep -q '"status": *"failed' "$res" && [[ $(wc -l < "$res") -gt 1 ]] \
     && [[ -d $OUT_DIR/layouts/$name-$S ]]; then
    log "saw bench $name S=$S: kept from an earlier run"; return 0
  fi
  log "saw bench $name S=$S"
  "$SAW" bench "$OUT_DIR/specs/$specname-$S.json" "$@" --pass fwd,bwd --dtype bf16 --backend gpu --reps 20 --warmup 5 \
    --out "$res" --export-flex "$OUT_DIR/layouts/$name-$S" 2>> "$OUT_DIR/saw-bench.log" \
    || log "saw bench $name S=$S exited $? (see saw-bench.log)"
}
if has_stage saw; then
  "$SAW" env > "$OUT_DIR/env.txt" 2>&1 || log "saw env failed (see env.txt)"
  COMMON=(--batch 4 --heads 16 --kv-heads 16 --head-dim "${HEAD_DIMS:-128,64}")
  for S in 8192 16384; do
    for C in causal window-1024 docs-8 prefix-lm sinks-window; do
      bench "$C" "$S" "$C" --block 128x64,128x128 "${COMMON[@]}"
    done
    bench random "$S" causal --density 0.05,0.1,0.25,0.5,1 --block 128x128 "${COMMON[@]}"
  done
  bench docs-64 32768 docs-64 --block 128x64,128x128 --batch 1 --heads 16 --kv-heads 16 --head-dim 128
  bench gqa-32-8 32768 gqa-32-8 --block 128x64,128x128 --batch 1 --heads 32 --kv-heads 8 --head-dim 128
  log "saw done after $(( $(date +%s) - START )) s"
fi

if has_stage flex; then
  "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))" \
    > "$OUT_DIR/torch.txt" 2>&1 || log "python3 with torch and a GPU is needed (see torch.txt)"
  # saw's outputs against FlexAttention's with sawmask's mask_mods, one seeded input set per mask (bf16 tolerance)
  if [[ ! -s $OUT_DIR/check.txt || ${FRESH:-} == 1 ]]; then
    for C in causal window-1024 docs-8 prefix-lm sinks-window; do
      [[ $C =~ $ROWS ]] || continue
      "$SAW" dump "$OUT_DIR/specs/$C-8192.json" --block 128x128 --batch 1 --heads 4 --kv-heads 4 --head-dim 128 \
        --dtype bf16 --backend gpu --seed 1 --out "$OUT_DIR/dumps/$C" 2>> "$OUT_DIR/saw-dump.log" || log "saw dump $C failed"
    done
    "$PY" "$COMPARE" check "$OUT_DIR"/dumps/*/ --out "$OUT_DIR/check.json" > "$OUT_DIR/check.txt" 2>&1 \
      || log "the output check found differences or failed (see check.txt)"
    rm -rf "$OUT_DIR/dumps"
  fi
  at=(--autotune-filter "$AUTOTUNE_ROWS"); modes=default,max-autotune
  [[ $AUTOTUNE_ROWS == none ]] && { at=(); modes=default; }
  echo "max-autotune rows: ${AUTOTUNE_ROWS}" > "$OUT_DIR/autotune-rows.txt"
  log "FlexAttention (modes $modes) and cuDNN on the 128x128 rows"
  files=()
  for f in "$OUT_DIR"/results/saw-*.json; do n=$(basename "$f" .json); n=${n#saw-}; [[ ${n%-*} =~ $ROWS ]] && files+=("$f"); done
  [[ ${#files[@]} -gt 0 ]] && "$PY" "$COMPARE" run "${files[@]}" --out-dir "$OUT_DIR/flex" --tile 128x128 --resume \
    --modes "$modes" "${at[@]}" 2>> "$OUT_DIR/compare.log" || log "compare_flex.py run exited $? (see compare.log)"
  log "FlexAttention done after $(( $(date +%s) - START )) s"
fi

if has_stage table; then
  "$PY" "$COMPARE" table "$OUT_DIR"/results/saw-*.json "$OUT_DIR"/flex/flex-*.json --markdown "$OUT_DIR/table.md" \
    > "$OUT_DIR/table.txt" 2>> "$OUT_DIR/compare.log"
  { echo "max-autotune ran on rows matching: $AUTOTUNE_ROWS"; echo; cat "$OUT_DIR/table.md"; } > "$OUT_DIR/table.md.tmp" \
    && mv "$OUT_DIR/table.md.tmp" "$OUT_DIR/table.md"
  log "done in $(( $(date +%s) - START )) s; useful TFLOP/s, worst saw/Flex ratio first"
  cat "$OUT_DIR/check.txt" 2>/dev/null
  cat "$OUT_DIR/table.txt"
fi
