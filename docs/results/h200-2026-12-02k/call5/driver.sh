#!/usr/bin/env bash
# session 11, call 5 (pack at branch softmax-tree, 9b5370f: the Hopper forwards' softmax with a tree row max and a
# four-part row sum; "main" = the same pack with main's sm_90a kernels, .varjar/main.fatbin): checks and forward A/B at
# D = 64, 128 and 256, three rounds alternating
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/k5
mkdir -p "$res/bench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-main; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"
python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/main.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
cp "$pack/saw" "$d/"; chmod +x "$d/saw"
el "checks"
( OUT=$res BWF_PARTS="verify" timeout -k 5 150 bash $pack/bwd-frontier.sh > "$res/bwf.txt" 2>&1 ) ; grep -A6 "== summary" "$res/bwf.txt" | grep -E "verify|sass"
for c in "window(1024) --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --rows 24 --block 128x128" \
         "and(causal,docs(700,300,200)) --seq 1250 --batch 4 --heads 6 --head-dim 256 --dtype bf16 --sinks --block 64x64" \
         "window(256) --seq 1000 --seq-kv 700 --head-dim 128 --dtype fp16 --heads 2 --softcap 10 --block 128x128"; do
  read -ra a <<<"$c"; SAW_JAVA_OPTS=-Xmx24g timeout 75 "$pack/saw" verify "${a[@]}" --pass fwd > /tmp/v.log 2>&1; echo "verify rc=$? $c | $(grep -E '^(PASS|FAIL)' /tmp/v.log)"
done
timeout 75 compute-sanitizer --tool racecheck --error-exitcode 9 "$pack/runtime/bin/java" -cp "$pack/lib/*" saw.app.Main verify \
  'and(causal,docs(900,700,448))' --seq 2048 --heads 20 --kv-heads 4 --head-dim 64 --dtype bf16 --block 128x128 --pass fwd > /tmp/r.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' /tmp/r.log | tail -1)"
el "timing"
bench() { # TAG VARIANT D BLOCK SPEC ARGS...
  local tag=$1 var=$2 hd=$3 blk=$4 spec=$5; shift 5
  local p=$pack; [[ $var == main ]] && p=/tmp/pack-main
  SAW_JAVA_OPTS=-Xmx24g timeout 100 "$p/saw" bench "$spec" "$@" --head-dim $hd --dtype bf16 --block $blk \
    --pass fwd --backend gpu --reps 20 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
rows=(
  "c8k-d64|64|128x128|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k-d64|64|128x128|preset:causal --seq 16384 --batch 4 --heads 16"
  "gqa32k-d64|64|128x128|preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8"
  "c8k-d128|128|128x128|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k-d128|128|128x128|preset:causal --seq 16384 --batch 4 --heads 16"
  "gqa32k-d128|128|128x128|preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8"
  "c8k-d256|256|64x64|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k-d256|256|64x64|preset:causal --seq 16384 --batch 2 --heads 16")
for r in 1 2 3; do
  for row in "${rows[@]}"; do
    IFS='|' read -r tag hd blk c <<<"$row"; read -ra a <<<"$c"
    if [[ $r == 2 ]]; then vs="tree main"; else vs="main tree"; fi
    for v in $vs; do bench "$tag-r$r" $v $hd $blk "${a[@]}"; done
  done
done
python3 - "$res/bench" <<'PY' | tee "$res/table.txt"
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
    rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
for tag in sorted(rows):
    v = rows[tag]; o, n = v.get("main"), v.get("tree")
    print(f"{tag:16s}", f"main {o[0]:.3f} ms {o[1]:6.1f}" if o else "main -", f"tree {n[0]:.3f} ms {n[1]:6.1f}" if n else "tree -",
          f"{o[0] / n[0]:.3f}x" if o and n else "", n[2] if n else "")
PY
el done
cd "$OUT" && tar czf k5-logs.tgz k5 && rm -rf k5/bench k5/bwd && ls -la "$OUT" "$OUT/k5"
