#!/usr/bin/env bash
# Long context on one GPU (issue 18), about 4 minutes on an H200: B=1, H=32, Hkv=8, D=128, bf16, 128x128 tiles, for
# sliding window 4096 (Mistral), window 4096 + 4 sinks (StreamingLLM), 64K-token packed documents and Llama 4
# chunked 8192. Per mask: saw bench forward at 256K, 1M, 2M and 4M tokens and forward+backward at 256K, 1M and 2M
# (256K is the "no cliff" baseline), then saw verify on seeded sampled rows at 1M and 2M (forward and backward) and
# 4M (forward). Writes into ${OUT}/long-context/: the saw.mask/1 specs (spec-MASK-N.json, for bench/compare_flex.py),
# bench-MASK-N.json results (saw.bench/1), verify-MASK-N.log, run.log. Prints a summary table last.
# Runs from a folder made by bench/gpu-pack.sh; SAW_LONG_SIZES and SAW_LONG_MASKS narrow it down.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}/long-context
mkdir -p "$out"
log=$out/run.log
: >"$log"
export SAW_JAVA_OPTS="${SAW_JAVA_OPTS:--Xmx24g}"
sizes=(${SAW_LONG_SIZES:-262144 1048576 2097152 4194304})
masks=(${SAW_LONG_MASKS:-window sinks docs64k chunked})
shape=(--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --dtype bf16)

spec() {  # spec MASK N: writes the saw.mask/1 file and prints its path
  local mask=$1 n=$2 f="$out/spec-$1-$2.json" m
  case $mask in
    window)  m='{"sliding_window": {"left": 4096, "right": 0}}' ;;
    sinks)   m='{"and": [{"causal": {"offset": 0}}, {"or": [{"sinks": {"count": 4}}, {"sliding_window": {"left": 4096, "right": 0}}]}]}' ;;
    docs64k) m=$(python3 -c "import json; print(json.dumps({'and': [{'causal': {'offset': 0}}, {'documents': {'lengths': [65536] * ($n // 65536)}}]}))") ;;
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
  "heads": 32,
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
    echo "== bench $mask $n $passes" | tee -a "$log"
    timeout 150 "$here/saw" bench "$f" "${shape[@]}" --backend gpu --pass "$passes" --warmup 1 --reps 3 \
      --out "$out/bench-$mask-$n.json" >>"$log" 2>&1
    echo "rc=$?" >>"$log"
    (( n < 1048576 )) && continue
    vpass=fwd,bwd
    (( n > 2097152 )) && vpass=fwd
    echo "== verify $mask $n $vpass" | tee -a "$log"
    timeout 150 "$here/saw" verify "$f" "${shape[@]}" --backend gpu --pass "$vpass" --rows 4 --seed 18 \
      >"$out/verify-$mask-$n.log" 2>&1
    echo "rc=$?" >>"$out/verify-$mask-$n.log"
  done
done

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
