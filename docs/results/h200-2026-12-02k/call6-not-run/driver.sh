#!/usr/bin/env bash
# session 11, call 6 (pack at branch softmax-tree; variants with main s softmax order and every 4th (poly4) or 2nd (poly2) exponential by exp2_poly, and
# four-part row sum; "main" = the same pack with main's sm_90a kernels, .varjar/main.fatbin): checks and forward A/B at
# D = 64, 128 and 256, three rounds alternating
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/k6
mkdir -p "$res/bench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
for v in main poly4 poly2; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"
  python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
  cp "$pack/saw" "$d/"; chmod +x "$d/saw"
done
for v in poly4 poly2; do
  SAW_JAVA_OPTS=-Xmx24g timeout 60 /tmp/pack-$v/saw verify 'and(causal,docs(3000,2000,1000,1500))' --seq 8192 --head-dim 64 --dtype fp16 --heads 8 --kv-heads 2 --block 128x128 --pass fwd > /tmp/v.log 2>&1; echo "verify $v rc=$? $(grep -E '^(PASS|FAIL)' /tmp/v.log)"
  SAW_JAVA_OPTS=-Xmx24g timeout 60 /tmp/pack-$v/saw verify 'window(256)' --seq 1000 --seq-kv 700 --head-dim 128 --dtype bf16 --heads 2 --softcap 10 --block 128x128 --pass fwd > /tmp/v.log 2>&1; echo "verify $v rc=$? $(grep -E '^(PASS|FAIL)' /tmp/v.log)"
done
el "timing"
bench() { # TAG VARIANT D BLOCK SPEC ARGS...
  local tag=$1 var=$2 hd=$3 blk=$4 spec=$5; shift 5
  local p=/tmp/pack-$var
  SAW_JAVA_OPTS=-Xmx24g timeout 100 "$p/saw" bench "$spec" "$@" --head-dim $hd --dtype bf16 --block $blk \
    --pass fwd --backend gpu --reps 20 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
rows=(
  "c8k-d64|64|128x128|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k-d64|64|128x128|preset:causal --seq 16384 --batch 4 --heads 16"
  "c8k-d128|128|128x128|preset:causal --seq 8192 --batch 4 --heads 16")
for r in 1 2; do
  for row in "${rows[@]}"; do
    IFS='|' read -r tag hd blk c <<<"$row"; read -ra a <<<"$c"
    if [[ $r == 2 ]]; then vs="poly2 poly4 main"; else vs="main poly4 poly2"; fi
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
    v = rows[tag]; o = v.get("main")
    print(f"{tag:16s}", " ".join(f"{k} {v[k][0]:.3f} ms {v[k][1]:6.1f} {o[0] / v[k][0]:.3f}x" for k in ("main", "poly4", "poly2") if v.get(k) and o))
PY
el done
cd "$OUT" && tar czf k6-logs.tgz k6 && rm -rf k6/bench k6/bwd && ls -la "$OUT" "$OUT/k6"
