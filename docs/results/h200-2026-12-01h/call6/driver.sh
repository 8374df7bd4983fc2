#!/usr/bin/env bash
# session 8, call 6: the D=256 128-row forward with TMA, turns (wgmma-pp) against no turns (wgmma-ws), two rounds per
# row, with cuDNN's forward beside (peers.py, forward only); then Nsight Compute of the TMA backward (causal 8K)
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/h6
mkdir -p "$res/bench" "$res/specs"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
cat > "$res/specs/window1k-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "window1k", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 64, "kv": 64 }, "mask": {"sliding_window": {"left": 1024, "right": 0}} }
JSON
cat > "$res/specs/docs8-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs8", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 64, "kv": 64 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [1500, 700, 1100, 900, 1300, 600, 1000, 1092] } } ] } }
JSON
bench() { # TAG FAMILY [SPEC] ARGS...
  local tag=$1 fam=$2 spec=preset:causal; shift 2
  [[ $1 == *.json ]] && { spec=$1; shift; }
  SAW_JAVA_OPTS="-Xmx24g -Dsaw.kernel.fwd=$fam" timeout 60 "$pack/saw" bench "$spec" "$@" --head-dim 256 --dtype bf16 --block 64x64 \
    --pass fwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$fam.jsonl" >> "$res/bench.log" 2>&1
  echo "$tag $fam rc=$?" >> "$res/bench.log"
}
for round in 1 2; do
  for fam in wgmma-pp wgmma-ws; do bench "causal8k-r$round" $fam --seq 8192 --batch 4 --heads 16; done
  for fam in wgmma-ws wgmma-pp; do bench "causal16k-r$round" $fam --seq 16384 --batch 2 --heads 16; done
done
for fam in wgmma-pp wgmma-ws; do bench "gqa16k" $fam --seq 16384 --batch 1 --heads 16 --kv-heads 4; done
for sp in window1k-8k docs8-8k; do for fam in wgmma-ws wgmma-pp; do bench "$sp" $fam "$res/specs/$sp.json"; done; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, fam = os.path.basename(f)[:-6].split("-wgmma-")
    try:
        ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
        rows[tag][fam] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
    except Exception: rows[tag][fam] = None
for tag, v in rows.items():
    o, n = v.get("pp"), v.get("ws")
    print(tag, f"pp {o[0]:.3f} ms {o[1]:.1f}" if o else "pp -", f"ws {n[0]:.3f} ms {n[1]:.1f}" if n else "ws -",
          f"ws/pp {o[0] / n[0]:.3f}x" if o and n else "", n[2] if n else "")
PY
el "cuDNN forward"
sed -n "/^cat >\"\$dir\/peers.py\" <<'PY'\$/,/^PY\$/p" "$pack/d256-wgmma.sh" | sed '1d;$d' > "$res/peers.py"
python3 - "$res/peers.py" > "$res/peers-fwd.py" <<'PY'
import sys
src = open(sys.argv[1]).read()
src = src.replace('both("flexattention", lambda q, k, v: flex(q, k, v, block_mask=bm))\n', '')
src = src.replace('    try:\n        out = attn(q, k, v)', '    return\n    try:\n        out = attn(q, k, v)')
print(src)
PY
for S in 8192 16384; do
  B=$(( S == 8192 ? 4 : 2 ))
  sed "s/^B, H, S, D = 4, 16, 8192, 256/B, H, S, D = $B, 16, $S, 256/" "$res/peers-fwd.py" > "$res/peers-fwd-$S.py"
  timeout -k 5 60 python3 "$res/peers-fwd-$S.py" > "$res/peers-fwd-$S.txt" 2>&1; echo "S=$S B=$B rc=$? $(grep fwd "$res/peers-fwd-$S.txt")"
done
el "profile backward"
timeout -k 5 75 ncu --clock-control none --target-processes all -k regex:'^bwd_wgmma_bf16_d256' --launch-skip 2 --launch-count 1 \
  --set full --import-source no -f -o "$res/prof-bwd" "$pack/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 \
  --head-dim 256 --dtype bf16 --block 64x64 --pass bwd --reps 1 --warmup 2 --out /tmp/ncu-bwd.jsonl > "$res/prof-bwd.log" 2>&1
echo "ncu rc=$?"
ncu -i "$res/prof-bwd.ncu-rep" --page details --print-details all > "$res/prof-bwd-details.txt" 2>&1
ncu -i "$res/prof-bwd.ncu-rep" --page source --csv --print-source sass > "$res/prof-bwd-source.csv" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Pipe Tensor Cycles|Issue Slots Busy" "$res/prof-bwd-details.txt" | head -6
gzip -f "$res/prof-bwd-source.csv" "$res/prof-bwd-details.txt"; rm -f "$res/prof-bwd.ncu-rep"
el done
