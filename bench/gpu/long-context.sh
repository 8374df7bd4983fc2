#!/usr/bin/env bash
# Long context on one GPU (issue 18), about 4 minutes on an H200: B=1, H=32, Hkv=8, D=128, bf16, 128x128 tiles, for
# sliding window 4096 (Mistral), window 4096 + 4 sinks (StreamingLLM), 64K-token packed documents and Llama 4
# chunked 8192. Per mask: saw bench forward at 256K, 1M, 2M and 4M tokens and forward+backward at 256K, 1M and 2M
# (256K is the "no cliff" baseline), then saw verify on seeded sampled rows at 1M and 2M (forward and backward) and
# 4M (forward). Writes into ${OUT}/long-context/: the saw.mask/1 specs (spec-MASK-N.json, for bench/compare_flex.py),
# bench-MASK-N.json results (saw.bench/1), verify-MASK-N.log, run.log. Prints a summary table last.
# Runs from a folder made by bench/gpu-pack.sh, with the repository root as the working directory when FlexAttention
# runs (it needs bench/compare_flex.py and python/sawmask). Environment:
#   SAW_LONG_SIZES="262144 1048576"   token counts (default: 256K 1M 2M 4M)
#   SAW_LONG_MASKS="chunked docs64k"  masks (default: window sinks docs64k chunked)
#   SAW_LONG_VERIFY=0                 skip saw verify (default 1)
#   SAW_LONG_FLEX=1                   also FlexAttention (torch.compile default mode; max-autotune at 1M does not fit
#                                     a device budget) on the same masks: saw bench exports its layouts at the flex
#                                     sizes (to scratch space, deleted at the end: 1.3 GB per mask at 1M), then
#                                     compare_flex.py times flex forward and backward with a head-broadcast BlockMask
#                                     from those layouts, enable_gqa, one compile per mask and size; writes
#                                     flex/flex-bench-MASK-N.json and flex.log, and prints flex-table.txt (saw vs Flex
#                                     fwd and fwd+bwd, ratios, saw vs 256K, Flex's error per row) last.
#   SAW_LONG_FLEX_SIZES="1048576"     sizes Flex runs at (default 1M; largest first; past 1M saw's flex file would
#                                     pass 2 GB, so saw bench names the mask config and Flex builds its block mask
#                                     with create_block_mask, compiled, as its users would)
#   SAW_LONG_FLEX_BUDGET=150          seconds after which compare_flex.py starts no more rows (recorded as skipped)
#   SAW_LONG_BACKEND=cpu SAW_LONG_HEADS=2 SAW_LONG_KV_HEADS=1  a dry run of the script without a GPU, at small sizes
# A 4-5 minute call: SAW_LONG_SIZES="262144 1048576" SAW_LONG_MASKS="chunked docs64k window sinks" SAW_LONG_VERIFY=0
# SAW_LONG_FLEX=1 SAW_LONG_FLEX_BUDGET=120 (saw at 256K and 1M, about 1.5 minutes; Flex at 1M in mask order, about
# 45 s a mask, most of it torch.compile; what is not started by 120 s is recorded as skipped).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}/long-context
mkdir -p "$out"
log=$out/run.log
: >"$log"
export SAW_JAVA_OPTS="${SAW_JAVA_OPTS:--Xmx24g}"
sizes=(${SAW_LONG_SIZES:-262144 1048576 2097152 4194304})
masks=(${SAW_LONG_MASKS:-window sinks docs64k chunked})
heads=${SAW_LONG_HEADS:-32}
backend=${SAW_LONG_BACKEND:-gpu}
shape=(--batch 1 --heads "$heads" --kv-heads "${SAW_LONG_KV_HEADS:-8}" --head-dim 128 --dtype bf16)
flex=${SAW_LONG_FLEX:-0}
flex_sizes=" ${SAW_LONG_FLEX_SIZES:-1048576} "
root=${SAW_REPO:-$PWD}
scratch=""
if [[ $flex == 1 ]]; then
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/saw-long-layouts.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  rm -rf "$out/flex"
fi

spec() {  # spec MASK N: writes the saw.mask/1 file and prints its path
  local mask=$1 n=$2 f="$out/spec-$1-$2.json" m
  case $mask in
    window)  m='{"sliding_window": {"left": 4096, "right": 0}}' ;;
    sinks)   m='{"and": [{"causal": {"offset": 0}}, {"or": [{"sinks": {"count": 4}}, {"sliding_window": {"left": 4096, "right": 0}}]}]}' ;;
    docs64k) m=$(python3 -c "import json; print(json.dumps({'and': [{'causal': {'offset': 0}}, {'documents': {'lengths': [65536] * ($n // 65536) or [$n]}}]}))") ;;
    chunked) m='{"chunked_causal": {"chunk": 8192}}' ;;
  esac
  cat >"$f" <<JSON
{
  "schema": "saw.mask/1",
  "name": "long-$mask",
  "description": "issue 18 long-context run: $mask at $n tokens",
  "seq_len_q": $n,
  "seq_len_kv": $n,
  "batch": 1,
  "heads": $heads,
  "block": { "q": 128, "kv": 128 },
  "mask": $m
}
JSON
  echo "$f"
}

for mask in "${masks[@]}"; do
  for n in "${sizes[@]}"; do
    f=$(spec "$mask" "$n")
    passes=fwd,bwd
    (( n > 2097152 )) && passes=fwd   # the backward's tensors at 4M (about 225 GiB) do not fit one H200
    export_args=()
    if [[ $flex == 1 && $flex_sizes == *" $n "* ]]; then
      export_args=(--export-flex "$scratch/$mask-$n")
    fi
    echo "== bench $mask $n $passes" | tee -a "$log"
    timeout 150 "$here/saw" bench "$f" "${shape[@]}" --backend "$backend" --pass "$passes" --warmup 1 --reps 3 \
      "${export_args[@]}" --out "$out/bench-$mask-$n.json" >>"$log" 2>&1
    echo "rc=$?" >>"$log"
    (( n < 1048576 )) && continue
    [[ ${SAW_LONG_VERIFY:-1} == 1 ]] || continue
    vpass=fwd,bwd
    (( n > 2097152 )) && vpass=fwd
    echo "== verify $mask $n $vpass" | tee -a "$log"
    timeout 150 "$here/saw" verify "$f" "${shape[@]}" --backend "$backend" --pass "$vpass" --rows 4 --seed 18 \
      >"$out/verify-$mask-$n.log" 2>&1
    echo "rc=$?" >>"$out/verify-$mask-$n.log"
  done
done

if [[ $flex == 1 ]]; then
  # largest size first: the target is at 1M, and rows past the budget are recorded as skipped, not run
  files=()
  for n in $(tr ' ' '\n' <<<"$flex_sizes" | sort -rn); do
    for mask in "${masks[@]}"; do
      [[ -f $out/bench-$mask-$n.json ]] && files+=("$out/bench-$mask-$n.json")
    done
  done
  budget=${SAW_LONG_FLEX_BUDGET:-150}
  echo "== flex ${#files[@]} results files, budget ${budget} s (default compile mode only)" | tee -a "$log"
  if [[ ! -f $root/bench/compare_flex.py ]]; then
    echo "flex: $root/bench/compare_flex.py not found; run from the repository root (or set SAW_REPO)" | tee -a "$log"
  elif (( ${#files[@]} )); then
    flex_start=$(date +%s)
    # the budget stops new rows; the timeout bounds the one in flight (a compile and a 1M documents backward)
    PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" timeout $(( ${budget%.*} + 150 )) python3 \
      "$root/bench/compare_flex.py" run "${files[@]}" --out-dir "$out/flex" --tile 128x128 --modes default --no-sdpa \
      --fwd-with-grad --warmup 1 --reps 2 --budget-s "$budget" >"$out/flex.log" 2>&1
    echo "flex rc=$? in $(( $(date +%s) - flex_start )) s (flex.log)" | tee -a "$log"
  fi
  rm -rf "$scratch"
fi

python3 - "$out" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(out, "bench-*.json"))):
    mask, n = re.match(r"bench-(.+)-(\d+)\.json", os.path.basename(f)).groups()
    for line in open(f):
        r = json.loads(line)
        if "pass" not in r:
            continue
        rows[(mask, int(n), r["pass"])] = r
verify = {}
for f in glob.glob(os.path.join(out, "verify-*.log")):
    mask, n = re.match(r"verify-(.+)-(\d+)\.log", os.path.basename(f)).groups()
    text = open(f).read().strip().splitlines()
    verify[(mask, int(n))] = next((l for l in reversed(text) if l.startswith(("PASS", "FAIL"))), (text[-2] if len(text) > 1 else "no output")[:60])
for f in glob.glob(os.path.join(out, "spec-*.json")):
    mask, n = re.match(r"spec-(.+)-(\d+)\.json", os.path.basename(f)).groups()
    if not any(k[0] == mask and k[1] == int(n) for k in rows):
        rows[(mask, int(n), "-")] = {"status": "no bench results (see run.log)"}
for f in sorted(glob.glob(os.path.join(out, "verify-*.log"))):
    line = next((l for l in open(f) if l.startswith("tile tables")), None)
    if line:
        print(os.path.basename(f)[7:-4] + ": " + line.strip())
print("%-8s %8s %4s %10s %8s %8s  %s" % ("mask", "tokens", "pass", "median_ms", "TFLOP/s", "vs256K", "verify / status"))
for (mask, n, p), r in sorted(rows.items()):
    base = rows.get((mask, 262144, p))
    t = r.get("useful_tflops")
    rel = "%.2f" % (t / base["useful_tflops"]) if t and base and base.get("useful_tflops") else "-"
    status = verify.get((mask, n), "") if r["status"] == "ok" else r["status"][:70] + (
        "; verify " + verify[(mask, n)] if (mask, n) in verify else "")
    print("%-8s %8d %4s %10s %8s %8s  %s" % (mask, n, p, "%.2f" % r["median_ms"] if r.get("median_ms") else "-",
                                             "%.1f" % t if t else "-", rel, status))
PY
if [[ $flex == 1 && -f $root/bench/long_context_table.py ]]; then
  echo
  python3 "$root/bench/long_context_table.py" "$out" | tee "$out/flex-table.txt"
fi
