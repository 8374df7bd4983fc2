#!/usr/bin/env bash
# session 8, call 4: the D=256 Hopper backward with TMA step loads (f476f84) -- d256-bwd-wgmma.sh (SASS, verify 10,
# sanitizers, fwd+bwd beside FlexAttention and cuDNN), extra verify cases, synccheck + fp16 racecheck, a one-GPU ring
# (RingGpus, virtual devices) at D=256, and the backward A/B against 7761ded (tileRead + cp.async loads by warpgroup 1)
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/h4
mkdir -p "$res/bench" "$res/specs"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-old; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-cpasync.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
java="$pack/runtime/bin/java"
el "d256-bwd-wgmma.sh"
OUT=$res timeout -k 5 240 bash "$pack/d256-bwd-wgmma.sh" > "$res/d256b.txt" 2>&1
echo "d256-bwd-wgmma rc=$?"; grep -A30 "== summary" "$res/d256b.txt" | head -32
el "extra checks"
for c in "causal --seq 1001 --heads 4 --kv-heads 1 --dtype bf16" "window(300) --seq 777 --seq-kv 900 --heads 2 --dtype fp16 --softcap 20" \
         "causal --seq 3 --heads 2 --dtype bf16" "random(64,64,30,5) --seq 4096 --heads 8 --kv-heads 2 --dtype bf16 --sinks" \
         "causal --seq 100 --seq-kv 40 --heads 4 --kv-heads 2 --dtype fp16 --batch 3"; do
  read -ra a <<<"$c"
  timeout 60 "$pack/saw" verify "${a[@]}" --head-dim 256 --block 64x64 --pass fwd,bwd > "$res/verify-extra.log" 2>&1
  echo "verify rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify-extra.log") $(awk '$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s ", $1, $2}' "$res/verify-extra.log")"
done
timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 "$java" -cp "$pack/lib/*" saw.app.Main verify \
  'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x64 --pass fwd,bwd > "$res/synccheck.log" 2>&1
echo "synccheck rc=$? $(grep -E 'ERROR SUMMARY' "$res/synccheck.log" | tail -1)"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 "$java" -cp "$pack/lib/*" saw.app.Main verify \
  'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype fp16 --block 64x64 --pass fwd,bwd > "$res/racecheck-fp16.log" 2>&1
echo "racecheck fp16 rc=$? $(grep -E 'RACECHECK SUMMARY' "$res/racecheck-fp16.log" | tail -1)"
timeout 90 "$pack/saw" ring-run preset:causal --seq 2048 --head-dim 256 --block 64x64 --heads 4 --kv-heads 2 --devices 2,4 --gpus 1 \
  --scheme all --repeat 1 > "$res/ring-d256.log" 2>&1
echo "ring-run D=256 one GPU rc=$?"; grep -iE 'pass|fail|error|max' "$res/ring-d256.log" | head -12
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
  SAW_JAVA_OPTS=-Xmx24g timeout 90 "$p/saw" bench "$spec" "$@" --head-dim 256 --dtype bf16 --block 64x64 \
    --pass bwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
  echo "$tag $var rc=$?" >> "$res/bench.log"
}
for round in 1 2; do for var in old new; do bench "causal8k-r$round" $var --seq 8192 --batch 4 --heads 16; done; done
for round in 1 2; do for var in new old; do bench causal16k-r$round $var --seq 16384 --batch 2 --heads 16; done; done
for var in old new; do bench gqa16k $var --seq 16384 --batch 1 --heads 16 --kv-heads 4; done
for sp in window1k-8k docs8-8k; do for var in old new; do bench "$sp" $var "$res/specs/$sp.json"; done; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    try:
        ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "bwd"]
        rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
    except Exception: rows[tag][var] = None
for tag, v in rows.items():
    o, n = v.get("old"), v.get("new")
    print(tag, f"old {o[0]:.3f} ms {o[1]:.1f}" if o else "old -", f"new {n[0]:.3f} ms {n[1]:.1f}" if n else "new -",
          f"{o[0] / n[0]:.3f}x" if o and n else "", n[2] if n else "")
PY
el done
