#!/usr/bin/env bash
# session 7, call 5: the D=256 Hopper backward v2d (tile read waited by WG1 behind dV; dK before dQ), A/B/C against 71e7471 and v2c, checks, cuDNN + Flex peers
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/f5
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
mkvar() { # NAME JAR
  [[ -f $2 ]] || return 0
  local d=/tmp/pack-$1
  mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
  cp "$2" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
}
mkvar old "$root/.oldjar/saw-engine-old.jar"
mkvar v2c "$root/.oldjar/saw-engine-v2c.jar"
el "checks (v2b)"
( OUT=$res timeout -k 5 200 bash "$pack/d256-bwd-wgmma.sh" > "$res/d256b.txt" 2>&1 ) &
checks=$!
java="$pack/runtime/bin/java"
timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 "$java" -cp "$pack/lib/*" saw.app.Main verify \
  'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x64 --pass fwd,bwd > "$res/synccheck.log" 2>&1
echo "synccheck rc=$? $(grep -E 'ERROR SUMMARY' "$res/synccheck.log" | tail -1)"
for c in "causal --seq 1001 --heads 4 --kv-heads 1 --dtype bf16" "window(300) --seq 777 --seq-kv 900 --heads 2 --dtype fp16 --softcap 20" \
         "causal --seq 3 --heads 2 --dtype bf16" "random(64,64,30,5) --seq 4096 --heads 8 --kv-heads 2 --dtype bf16 --sinks"; do
  read -ra a <<<"$c"
  timeout 60 "$pack/saw" verify "${a[@]}" --head-dim 256 --block 64x64 --pass fwd,bwd > "$res/verify-extra.log" 2>&1
  echo "verify rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify-extra.log") $(awk '$1=="dQ"||$1=="dK"{printf "%s %s ", $1, $2}' "$res/verify-extra.log")"
done
wait $checks
grep -A30 "== summary" "$res/d256b.txt"
mkdir -p "$res/specs"
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
  [[ -x $p/saw ]] || return 0
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "$p/saw" bench "$spec" "$@" --head-dim 256 --dtype bf16 --block 64x64 \
    --pass bwd --backend gpu --reps 10 --warmup 2 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
  echo "$tag $var rc=$?" >> "$res/bench.log"
}
el "timing"
for round in 1 2; do
  for var in old v2c new; do bench "causal8k-r$round" $var --seq 8192 --batch 4 --heads 16; done
done
for var in old v2c new; do bench "gqa16k" $var --seq 16384 --batch 1 --heads 16 --kv-heads 4; done
for sp in window1k-8k docs8-8k; do for var in old new; do bench "$sp" $var "$res/specs/$sp.json"; done; done
el "saw forward + peers"
SAW_JAVA_OPTS=-Xmx24g timeout 120 "$pack/saw" bench preset:causal --seq 8192 --batch 4 --heads 16 --head-dim 256 --dtype bf16 --block 64x64 \
  --pass fwd --backend gpu --reps 10 --warmup 2 --out "$res/bench/fwd-causal8k-new.jsonl" >> "$res/bench.log" 2>&1
echo "fwd rc=$? $(python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][-1]; print(r.get('kernel'), r.get('median_ms'), r.get('useful_tflops'))" "$res/bench/fwd-causal8k-new.jsonl")"
sed -n "/^cat >\"\$dir\/peers.py\" <<'PY'\$/,/^PY\$/p" "$pack/d256-wgmma.sh" | sed '1d;$d' > "$res/peers.py"
timeout -k 5 120 python3 "$res/peers.py" > "$res/peers.txt" 2>&1
echo "peers rc=$?"; cat "$res/peers.txt" | grep -E "fwd|bwd"
el "summary"
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    try:
        ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "bwd"]
        rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel", "")) if ok else None
    except Exception as e:
        rows[tag][var] = None
for tag, v in rows.items():
    o = v.get("old")
    line = tag
    for var in ("old", "v2c", "new"):
        r = v.get(var)
        line += f"  {var} " + (f"{r[0]:.3f} ms {r[1]:.1f} TF" if r else "-")
        if r and o and var != "old": line += f" ({o[0] / r[0]:.3f}x)"
    print(line)
PY
el done
