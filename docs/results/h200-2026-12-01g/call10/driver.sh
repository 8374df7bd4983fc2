#!/usr/bin/env bash
# session 7, call 10 (trial): the D=256 backward with the step copies split over both warpgroups (e1ce397), A/B against
# 725e324, with verify and racecheck/memcheck
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/f10
mkdir -p "$res/bench"
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-old; mkdir -p "$d/lib"; ln -sf "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-v3.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
java="$pack/runtime/bin/java"
for tool in racecheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$java" -cp "$pack/lib/*" saw.app.Main verify \
    'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x64 --sinks --softcap 30 --pass fwd,bwd > "$res/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/$tool.log" | tail -1)"
done
for c in "causal --seq 2048 --heads 4 --dtype bf16" "causal --seq 1001 --heads 4 --kv-heads 1 --dtype bf16" "random(64,64,30,5) --seq 4096 --heads 8 --kv-heads 2 --dtype fp16 --sinks --softcap 20"; do
  read -ra a <<<"$c"
  timeout 60 "$pack/saw" verify "${a[@]}" --head-dim 256 --block 64x64 --pass fwd,bwd > "$res/verify.log" 2>&1
  echo "verify rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify.log") $(awk '$1=="dQ"||$1=="dK"{printf "%s %s ", $1, $2}' "$res/verify.log")"
done
bench() { # TAG VARIANT ARGS
  local tag=$1 var=$2; shift 2; local p=$pack; [[ $var == old ]] && p=/tmp/pack-old
  SAW_JAVA_OPTS=-Xmx24g timeout 60 "$p/saw" bench preset:causal "$@" --head-dim 256 --dtype bf16 --block 64x64 \
    --pass bwd --backend gpu --reps 10 --warmup 2 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
for round in 1 2; do for var in old new; do bench "causal8k-r$round" $var --seq 8192 --batch 4 --heads 16; done; done
for var in old new; do bench causal16k $var --seq 16384 --batch 2 --heads 16; bench gqa16k $var --seq 16384 --batch 1 --heads 16 --kv-heads 4; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "bwd"]
    rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"]) if ok else None
for tag, v in rows.items():
    o, n = v.get("old"), v.get("new")
    print(tag, f"old {o[0]:.3f} ms {o[1]:.1f}" if o else "old -", f"new {n[0]:.3f} ms {n[1]:.1f}" if n else "new -",
          f"{o[0] / n[0]:.3f}x" if o and n else "")
PY
