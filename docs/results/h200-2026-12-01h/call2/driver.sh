#!/usr/bin/env bash
# session 8, call 2: the D=256 128-row forward with TMA loads (cdd061a) -- d256-fwd128.sh (SASS, verify 11, sanitizers,
# 64- vs 128-row timing, cuDNN), extra ragged verify cases, A/B against the cp.async kernel (7761ded jar), FlexAttention and
# cuDNN side by side (peers.py), D=64 racecheck of the merged RS backward, profile of the new kernel
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/h2
mkdir -p "$res/bench" "$res/specs"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-old; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-cpasync.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
java="$pack/runtime/bin/java"
el "d256-fwd128.sh"
OUT=$res timeout -k 5 200 bash "$pack/d256-fwd128.sh" > "$res/d256f.txt" 2>&1
echo "d256-fwd128 rc=$?"; grep -A40 "== summary" "$res/d256f.txt" | head -40
el "extra verify"
for c in "causal --seq 3 --heads 2 --dtype bf16" "causal --seq 100 --seq-kv 40 --heads 4 --kv-heads 2 --dtype fp16" \
         "window(300) --seq 777 --seq-kv 900 --heads 2 --dtype fp16 --softcap 20" "causal --seq 1001 --heads 4 --kv-heads 1 --dtype bf16 --batch 3" \
         "random(64,64,30,5) --seq 4096 --heads 8 --kv-heads 2 --dtype bf16 --sinks"; do
  read -ra a <<<"$c"
  timeout 60 "$pack/saw" verify "${a[@]}" --head-dim 256 --block 64x64 --pass fwd > "$res/verify-extra.log" 2>&1
  echo "verify rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify-extra.log") $(awk '$1=="O"||$1=="LSE"{printf "%s %s ", $1, $2}' "$res/verify-extra.log") $(grep -o 'fwd_[a-z0-9_]*' "$res/verify-extra.log" | head -1)"
done
el "D=64 racecheck (RS backward)"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 "$java" -cp "$pack/lib/*" \
  saw.app.Main verify 'and(causal,docs(700,300,200))' --seq 1250 --heads 2 --kv-heads 1 --head-dim 64 --dtype bf16 \
  --block 128x128 --pass fwd,bwd > "$res/san64-racecheck.log" 2>&1
echo "san64 racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$res/san64-racecheck.log" | tail -1)"
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
for var in new old; do bench causal16k $var --seq 16384 --batch 2 --heads 16; done
for var in old new; do bench gqa16k $var --seq 16384 --batch 1 --heads 16 --kv-heads 4; done
for sp in window1k-8k docs8-8k; do for var in old new; do bench "$sp" $var "$res/specs/$sp.json"; done; done
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
el "peers"
sed -n "/^cat >\"\$dir\/peers.py\" <<'PY'\$/,/^PY\$/p" "$pack/d256-wgmma.sh" | sed '1d;$d' > "$res/peers.py"
timeout -k 5 150 python3 "$res/peers.py" > "$res/peers.txt" 2>&1
echo "peers rc=$?"; grep -E "fwd|bwd" "$res/peers.txt"
bench after-peers new --seq 8192 --batch 4 --heads 16
python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][-1]; print('saw fwd after peers', r.get('kernel'), r.get('median_ms'), r.get('useful_tflops'))" "$res/bench/after-peers-new.jsonl"
el "profile"
timeout -k 5 120 ncu --clock-control none --target-processes all -k regex:'^fwd_wgmmapp_bf16_d256_q128' --launch-skip 2 --launch-count 1 \
  --set full --import-source no -f -o "$res/prof-tma" "$pack/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 \
  --head-dim 256 --dtype bf16 --block 64x64 --pass fwd --reps 1 --warmup 2 --out /tmp/ncu-tma.jsonl > "$res/prof-tma.log" 2>&1
echo "ncu rc=$?"
ncu -i "$res/prof-tma.ncu-rep" --page details --print-details all > "$res/prof-tma-details.txt" 2>&1
ncu -i "$res/prof-tma.ncu-rep" --page source --csv --print-source sass > "$res/prof-tma-source.csv" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Pipe Tensor Cycles|Issue Slots Busy|L1/TEX Cache Throughput" "$res/prof-tma-details.txt" | head -8
gzip -f "$res/prof-tma-source.csv" "$res/prof-tma-details.txt"; rm -f "$res/prof-tma.ncu-rep"
el done
