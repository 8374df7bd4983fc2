#!/usr/bin/env bash
# session 8, call 3: the D=256 128-row forward with TMA loads and maps encoded once per buffer (5f0568e), A/B against the
# cp.async kernel (7761ded jar), two rounds; then Nsight Compute of the D=128 pp forward (causal 8K) as the baseline for its port
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/h3
mkdir -p "$res/bench" "$res/specs"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-old; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-cpasync.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
el "A/B timing"
cat > "$res/specs/window1k-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "window1k", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 64, "kv": 64 }, "mask": {"sliding_window": {"left": 1024, "right": 0}} }
JSON
cat > "$res/specs/docs8-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs8", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 64, "kv": 64 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [1500, 700, 1100, 900, 1300, 600, 1000, 1092] } } ] } }
JSON
bench() { # TAG VARIANT [SPEC] ARGS...
  local tag=$1 var=$2 spec=preset:causal; shift 2
  [[ $1 == *.json ]] && { spec=$1; shift; }
  local p=$pack; [[ $var != new ]] && p=/tmp/pack-$var
  SAW_JAVA_OPTS=-Xmx24g timeout 60 "$p/saw" bench "$spec" "$@" --head-dim 256 --dtype bf16 --block 64x64 \
    --pass fwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
  echo "$tag $var rc=$?" >> "$res/bench.log"
}
for round in 1 2; do for var in old new; do bench "causal8k-r$round" $var --seq 8192 --batch 4 --heads 16; done; done
for round in 1 2; do for var in new old; do bench causal16k-r$round $var --seq 16384 --batch 2 --heads 16; done; done
for var in old new; do bench gqa16k $var --seq 16384 --batch 1 --heads 16 --kv-heads 4; done
for round in 1 2; do for sp in window1k-8k docs8-8k; do for var in old new; do bench "$sp-r$round" $var "$res/specs/$sp.json"; done; done; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    try:
        ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
        rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
    except Exception: rows[tag][var] = None
for tag, v in rows.items():
    o, n = v.get("old"), v.get("new")
    print(tag, f"old {o[0]:.3f} ms {o[1]:.1f}" if o else "old -", f"new {n[0]:.3f} ms {n[1]:.1f}" if n else "new -",
          f"{o[0] / n[0]:.3f}x" if o and n else "", n[2] if n else "")
PY
el "profile D=128 pp forward"
timeout -k 5 120 ncu --clock-control none --target-processes all -k regex:'^fwd_wgmmapp_bf16_d128' --launch-skip 2 --launch-count 1 \
  --set full --import-source no -f -o "$res/prof-d128" "$pack/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 \
  --head-dim 128 --dtype bf16 --block 128x128 --pass fwd --reps 1 --warmup 2 --out /tmp/ncu-d128.jsonl > "$res/prof-d128.log" 2>&1
echo "ncu rc=$?"
ncu -i "$res/prof-d128.ncu-rep" --page details --print-details all > "$res/prof-d128-details.txt" 2>&1
ncu -i "$res/prof-d128.ncu-rep" --page source --csv --print-source sass > "$res/prof-d128-source.csv" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Pipe Tensor Cycles|Issue Slots Busy|L1/TEX Cache Throughput" "$res/prof-d128-details.txt" | head -8
gzip -f "$res/prof-d128-source.csv" "$res/prof-d128-details.txt"; rm -f "$res/prof-d128.ncu-rep"
el done
