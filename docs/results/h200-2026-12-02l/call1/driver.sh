#!/usr/bin/env bash
# session 12, call 1 (pack .gpupack-l1 at branch nsa-fused-merge rebased on main, e16095e):
#  A. the NSA per-block forward with the merge in the kernel (SAW_NSA_MERGE=fused): gate, verify, memcheck, bench
#     at T = 32K / 64K, G = 16 beside the separate merge and the warp order
#  B. main's softmax with every 4th / 2nd exponential by exp2_poly (fatbins from softmax-poly-seq 7ecec11, whose dense
#     kernels are this pack's): verify and forward A/B at D = 64 and 128, two rounds alternating
set -uo pipefail
root=$PWD
pack=$root/.gpupack-l1
res=$OUT/l1
mkdir -p "$res/bench" "$res/fbench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
export SAW_JAVA_OPTS=-Xmx24g
flog=$res/fused.log; : > "$flog"
fv() { # verify the fused forward; prints one line
  local o rc
  o=$(SAW_NSA_FWD=block SAW_NSA_MERGE=fused timeout ${FV_T:-60} "$pack/saw" verify --backend gpu --pass fwd "$@" 2>&1); rc=$?
  { echo "== fused $*"; echo "$o"; echo "rc=$rc"; } >> "$flog"
  echo "fused verify rc=$rc $(echo "$o" | grep -E '^(PASS|FAIL)' | head -1) :: $*"
  return $rc
}
el "A. fused gate"
if fv --nsa random --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 4096; then
  fv --nsa random --nsa-block 64  --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30
  fv --nsa random --nsa-block 128 --nsa-s 8  --heads 16 --kv-heads 1 --head-dim 128 --dtype fp16 --seq 2500
  fv --nsa random --nsa-block 128 --nsa-s 32 --heads 8  --kv-heads 2 --head-dim 64  --dtype bf16 --seq 4100
  fv --nsa random --nsa-block 64  --nsa-s 16 --heads 24 --kv-heads 1 --head-dim 128 --dtype fp16 --seq 1300 --softcap 30
  fv --nsa random --nsa-block 64  --nsa-s 32 --heads 4  --kv-heads 1 --head-dim 64  --dtype bf16 --seq 1
  fv --nsa random --nsa-block 64  --nsa-s 3  --heads 48 --kv-heads 3 --head-dim 128 --dtype bf16 --seq 5000 --batch 2
  fv --nsa scored --nsa-block 64  --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096
  fv --nsa random --nsa-block 64  --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 64  --dtype bf16 --seq 8192
  el "fused memcheck"
  o=$(SAW_NSA_FWD=block SAW_NSA_MERGE=fused timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$pack/runtime/bin/java" -cp "$pack/lib/*" saw.app.Main verify --nsa random --seq 3000 --dtype bf16 --nsa-block 64 \
      --nsa-s 8 --heads 32 --kv-heads 2 --head-dim 64 --backend gpu --pass fwd 2>&1); rc=$?
  { echo "== memcheck"; echo "$o"; } >> "$flog"
  echo "fused memcheck rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY' | tail -1)"
  el "fused bench"
  for T in 32768 65536; do
    for m in "block separate" "block fused" "warp separate" "block fused" "block separate"; do
      read -r order merge <<<"$m"
      SAW_NSA_FWD=$order SAW_NSA_MERGE=$merge timeout 100 "$pack/saw" bench --nsa random --seq $T --heads 64 --kv-heads 4 \
        --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --pass fwd --reps 10 --warmup 3 \
        --out "$res/fbench/$T-$order-$merge.jsonl" >> "$flog" 2>&1
      echo "bench T=$T $order $merge: $(tail -1 "$res/fbench/$T-$order-$merge.jsonl" 2>/dev/null | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(r.get("kernel"), round(r.get("median_ms"),3), "ms", round(r.get("useful_tflops"),1))' 2>/dev/null)"
    done
  done
else
  echo "fused gate failed: the rest of part A skipped"; tail -20 "$flog"
fi

el "B. poly variant packs"
for v in poly4; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"
  python3 - "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import sys, zipfile
name = "saw/kernels/saw_attention.fatbin"
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[3], "w", zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        if info.filename != name: dst.writestr(info, src.read(info.filename))
    dst.write(sys.argv[2], name)
PY
  cp "$pack/saw" "$d/"; chmod +x "$d/saw"
done
ln -s "$pack" /tmp/pack-main
for v in poly4; do
  timeout 60 /tmp/pack-$v/saw verify 'and(causal,docs(3000,2000,1000,1500))' --seq 8192 --head-dim 64 --dtype fp16 --heads 8 --kv-heads 2 --block 128x128 --pass fwd > /tmp/v.log 2>&1; echo "verify $v d64 rc=$? $(grep -E '^(PASS|FAIL)' /tmp/v.log)"; cat /tmp/v.log >> "$res/poly-verify.log"
  timeout 60 /tmp/pack-$v/saw verify 'window(256)' --seq 1000 --seq-kv 700 --head-dim 128 --dtype bf16 --heads 2 --softcap 10 --block 128x128 --pass fwd > /tmp/v.log 2>&1; echo "verify $v d128 rc=$? $(grep -E '^(PASS|FAIL)' /tmp/v.log)"; cat /tmp/v.log >> "$res/poly-verify.log"
done
el "poly timing"
bench() { # TAG VARIANT D BLOCK SPEC ARGS...
  local tag=$1 var=$2 hd=$3 blk=$4 spec=$5; shift 5
  timeout 100 /tmp/pack-$var/saw bench "$spec" "$@" --head-dim $hd --dtype bf16 --block $blk \
    --pass fwd --backend gpu --reps 20 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
rows=(
  "c8k-d64|64|128x128|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k-d64|64|128x128|preset:causal --seq 16384 --batch 4 --heads 16"
  "c8k-d128|128|128x128|preset:causal --seq 8192 --batch 4 --heads 16")
for r in 1 2; do
  for row in "${rows[@]}"; do
    IFS='|' read -r tag hd blk c <<<"$row"; read -ra a <<<"$c"
    if [[ $r == 2 ]]; then vs="poly4 main"; else vs="main poly4"; fi
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
cd "$OUT" && tar czf l1-logs.tgz l1 && rm -rf l1/bench l1/fbench && ls -la "$OUT" "$OUT/l1"
