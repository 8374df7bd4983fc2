#!/usr/bin/env bash
# session 9, call 1 (pack at d7fae13): (a) branch d64-rs-dqt (8b24896, fatbin only, in .varjar/saw-engine-dqt.jar):
# bwd-frontier verify, D=64 sanitizers (one JVM at a time), extra D=64 verifies, a one-GPU ring-run at D=64, A/B
# against main; (b) d7fae13's D=256 kernels re-checked (d256-fwd128.sh, d256-bwd-wgmma.sh); (c) saw tune with the
# alternate timing of close finishes at D=256 (8K, GQA 16K, 16K)
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/i1
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-dqt
mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.varjar/saw-engine-dqt.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"; cp "$pack"/bwd-frontier.sh "$pack"/hopper-lib.sh "$d/"
java="$pack/runtime/bin/java"
el "checks (dqt)"
( OUT=$res BWF_PARTS="verify" timeout -k 5 200 bash $d/bwd-frontier.sh > "$res/bwf.txt" 2>&1 ) &
bwf=$!
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$java" -cp "$d/lib/*" \
    saw.app.Main verify 'and(causal,docs(700,300,200))' --seq 1250 --heads 2 --kv-heads 1 --head-dim 64 --dtype bf16 \
    --block 128x128 --pass fwd,bwd > "$res/san64-$tool.log" 2>&1; echo "rc=$?" >> "$res/san64-$tool.log"
  echo "san64 $tool $(tail -1 $res/san64-$tool.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san64-$tool.log" | tail -1)"
done
wait $bwf
for c in "causal --seq 1001 --heads 4 --kv-heads 1 --dtype bf16" "random(128,128,30,5) --seq 4096 --heads 8 --kv-heads 2 --dtype fp16 --sinks --softcap 30" "causal --seq 3 --heads 2 --dtype bf16" "window(300) --seq 777 --seq-kv 900 --heads 2 --dtype fp16 --batch 3"; do
  read -ra a <<<"$c"
  timeout 60 $d/saw verify "${a[@]}" --head-dim 64 --block 128x128 --pass fwd,bwd > "$res/verify64.log" 2>&1
  echo "verify d64 rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify64.log") $(awk '$1=="dQ"||$1=="dK"{printf "%s %s ", $1, $2}' "$res/verify64.log")"
done
timeout 90 $d/saw ring-run preset:causal --seq 2048 --head-dim 64 --block 128x128 --heads 4 --kv-heads 2 --devices 2,4 --gpus 1 \
  --scheme all --repeat 1 > "$res/ring-d64.log" 2>&1
echo "ring-run D=64 one GPU rc=$?"; grep -iE 'pass|fail|error|max' "$res/ring-d64.log" | head -12
grep -A16 "== summary" "$res/bwf.txt"; grep d64 "$res/bwd/sass-summary.txt" 2>/dev/null
el "timing d64"
L=""; SUM=0; for i in $(seq 0 62); do n=$(( (i % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
cat > "$res/docs64-32k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs64", "seq_len_q": 32768, "seq_len_kv": 32768, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [$L$((32768 - SUM))] } } ] } }
JSON
bench64() { # TAG VARIANT SPEC ARGS...
  local tag=$1 var=$2 spec=$3; shift 3
  local p=$pack; [[ $var != main ]] && p=/tmp/pack-$var
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "$p/saw" bench "$spec" "$@" --head-dim 64 --dtype bf16 --block 128x128 \
    --pass bwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
for round in 1 2; do for var in main dqt; do bench64 "causal8k-r$round" $var preset:causal --seq 8192 --batch 4 --heads 16; done; done
for round in 1 2; do for var in dqt main; do bench64 "causal16k-r$round" $var preset:causal --seq 16384 --batch 4 --heads 16; done; done
for var in main dqt; do bench64 gqa32k $var preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8; done
for var in dqt main; do bench64 docs64 $var "$res/docs64-32k.json"; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "bwd"]
    rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
for tag, v in rows.items():
    o, n = v.get("main"), v.get("dqt")
    print(tag, f"main {o[0]:.3f} ms {o[1]:.1f}" if o else "main -", f"dqt {n[0]:.3f} ms {n[1]:.1f}" if n else "dqt -",
          f"{o[0] / n[0]:.3f}x" if o and n else "", n[2] if n else "")
PY
el "d256 re-checks at d7fae13"
( cd "$res" && OUT=$res timeout -k 5 150 bash "$pack/d256-fwd128.sh" > "$res/d256f.txt" 2>&1; echo "d256-fwd128 rc=$?" )
tail -25 "$res/d256f.txt"
el "d256 backward"
( OUT=$res timeout -k 5 150 bash "$pack/d256-bwd-wgmma.sh" > "$res/d256b.txt" 2>&1; echo "d256-bwd-wgmma rc=$?" )
tail -25 "$res/d256b.txt"
el "tune"
for a in "--seq 8192 --batch 4 --heads 16" "--seq 16384 --batch 1 --heads 16 --kv-heads 4" "--seq 16384 --batch 2 --heads 16"; do
  timeout 60 "$pack/saw" tune preset:causal $a --head-dim 256 --dtype bf16 --passes fwd --no-cache >> "$res/tune.log" 2>&1; echo "rc=$?" >> "$res/tune.log"
done
grep -E "^saw tune|wgmma|winner|alternat|rc=" "$res/tune.log"
el done
