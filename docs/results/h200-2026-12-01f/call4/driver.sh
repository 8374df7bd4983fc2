#!/usr/bin/env bash
# session 6, call 4: dQ tile added by the last warp at once, producer-side proxy fence (no consumer fence per step); D=64 variant
# "var" issues each warpgroup's tile at its next barrier (as before); A/B/C against main 57d2fbc
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/e4
mkdir -p "$res/specs" "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
old=/tmp/oldpack
mkdir -p "$old/lib"
ln -s "$pack/runtime" "$old/runtime"
cp "$pack"/lib/*.jar "$old/lib/"
rm "$old"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-old.jar" "$old/lib/"
cp "$pack/saw" "$old/saw"; chmod +x "$old/saw"
var=/tmp/varpack
mkdir -p "$var/lib"; ln -s "$pack/runtime" "$var/runtime"; cp "$pack"/lib/*.jar "$var/lib/"; rm "$var"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-var.jar" "$var/lib/"; cp "$pack/saw" "$var/saw"; chmod +x "$var/saw"

el "checks (verify 12 + sanitizers D=128, in the background) and D=64 sanitizers"
( OUT=$res BWF_PARTS="verify sanitize" timeout -k 5 200 bash "$pack/bwd-frontier.sh" > "$res/checks.txt" 2>&1 ) &
checks=$!
for p in "$pack" "$var"; do
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Dsaw.kernel.bwd=wgmma-ws -cp "$p/lib/*" \
    saw.app.Main verify 'and(causal,docs(700,300,200))' --seq 1250 --heads 2 --kv-heads 1 --head-dim 64 --dtype bf16 \
    --block 128x128 --pass fwd,bwd > "$res/san64-$tool-$(basename $p).log" 2>&1
  echo "san64 $p $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san64-$tool-$(basename $p).log" | tail -1)"
done
done
for c in "window(256) --seq 4096 --heads 4 --head-dim 64 --dtype bf16" "and(causal,docs(3000,2000,1000,1500)) --seq 7500 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16"; do
  read -ra a <<<"$c"
  SAW_JAVA_OPTS=-Dsaw.kernel.bwd=wgmma-ws timeout 60 "$var/saw" verify "${a[@]}" --block 128x128 --pass fwd,bwd > "$res/verify-var.log" 2>&1
  echo "verify var rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify-var.log")"
done
wait $checks
el "checks done"
tail -25 "$res/checks.txt"

spec() { cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 128, "kv": 128 }, "mask": $5 }
JSON
}
CAUSAL='{ "causal": { "offset": 0 } }'
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
spec causal-8k 8192 4 16 "$CAUSAL"
spec causal-16k 16384 4 16 "$CAUSAL"
spec gqa-32k 32768 1 32 "$CAUSAL"
spec docs64-32k 32768 1 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$L$((32768 - SUM))] } } ] }"
spec window-1m 1048576 1 32 '{"sliding_window": {"left": 4096, "right": 0}}'
spec chunked-1m 1048576 1 32 '{"chunked_causal": {"chunk": 8192}}'
D64K=$(python3 -c "import json; print(json.dumps({'and': [{'causal': {'offset': 0}}, {'documents': {'lengths': [65536] * 16}}]}))")
spec docs64k-1m 1048576 1 32 "$D64K"
bench() { # TAG VARIANT SPEC D REPS ARGS...
  local tag=$1 var=$2 sp=$3 d=$4 reps=$5; shift 5
  local p=$pack; [[ $var == old ]] && p=$old; [[ $var == var ]] && p=/tmp/varpack
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "$p/saw" bench "$res/specs/$sp.json" "$@" --head-dim $d --dtype bf16 --block 128x128 \
    --pass bwd --backend gpu --reps $reps --warmup $([[ $reps == 3 ]] && echo 1 || echo 2) --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
  echo "$tag $var rc=$?" >> "$res/bench.log"
}
el "timing"
for round in 1 2; do
  for row in "causal-8k|4 16 16" "causal-16k|4 16 16" "gqa-32k|1 32 8" "docs64-32k|1 16 16"; do
    sp=${row%%|*}; read -r b h hk <<<"${row#*|}"
    for var in old new; do bench "$sp-d128-r$round" $var $sp 128 10 --batch $b --heads $h --kv-heads $hk; done
  done
done
for round in 1 2; do
for sp in causal-8k causal-16k; do
  for var in old new var; do bench "$sp-d64-r$round" $var $sp 64 10 --batch 4 --heads 16 --kv-heads 16; done
done
done
el "timing 1M"
for sp in window-1m chunked-1m docs64k-1m; do
  (( $(date +%s) - t0 > 440 )) && { el "skip $sp: time"; continue; }
  for var in old new; do bench "$sp" $var $sp 128 3 --batch 1 --heads 32 --kv-heads 8; done
  el "$sp"
done
el "cudnn"
cp "$res/bwd/cudnn.py" "$res/cudnn.py" 2>/dev/null || true
cat > "$res/cudnn64.py" <<'PY'
# cuDNN SDPA backward, causal D=64 and D=128 rows, median of 10 after 3 (the peer that ran, beside its numbers)
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for name, B, H, S, D in (("causal-8k", 4, 16, 8192, 128), ("causal-16k", 4, 16, 16384, 128), ("causal-8k", 4, 16, 8192, 64), ("causal-16k", 4, 16, 16384, 64)):
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    do = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        ts = []
        for i in range(13):
            q.grad = k.grad = v.grad = None
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); out.backward(do, retain_graph=True); b.record(); b.synchronize()
            if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort(); ms = (ts[4] + ts[5]) / 2
    print(f"cudnn {name} d{D} {ms:.3f} ms {2.5 * 4 * B * H * D * S * (S + 1) / 2 / ms / 1e9:.1f} TF")
    del q, k, v, do, out; torch.cuda.empty_cache(); sys.stdout.flush()
PY
timeout 90 python3 "$res/cudnn64.py" > "$res/cudnn.txt" 2>&1
cat "$res/cudnn.txt"
el "profile new"
for d in 64 128; do
timeout -k 5 100 ncu --clock-control none --target-processes all -k regex:'^bwd_wgmmaws_bf16_d' --launch-skip 2 --launch-count 1 \
  --set full --import-source no -f -o "$res/prof-new" "$pack/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 \
  --head-dim $d --dtype bf16 --block 128x128 --pass bwd --reps 1 --warmup 2 --out /tmp/ncu-new.jsonl > "$res/prof-new$d.log" 2>&1
ncu -i "$res/prof-new.ncu-rep" --page details --print-details all > "$res/prof-new$d-details.txt" 2>&1
ncu -i "$res/prof-new.ncu-rep" --page source --csv --print-source sass > "$res/prof-new$d-source.csv" 2>&1
gzip -f "$res/prof-new$d-source.csv"; rm -f "$res/prof-new.ncu-rep"
done
el "summary"
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    try:
        rs = [json.loads(l) for l in open(f)][1:]
        ok = [r for r in rs if r.get("status") == "ok" and r.get("pass") == "bwd"]
        rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel", "")) if ok else None
    except Exception as e:
        rows[tag][var] = None
for tag, v in rows.items():
    o, n, w = v.get("old"), v.get("new"), v.get("var")
    fmt = lambda x: f"{x[1]:7.1f} TF {x[0]:9.3f} ms" if x else "   failed"
    r = f"{n[1] / o[1]:.3f}x" if o and n else "-"
    rv = f"  var {fmt(w)} var/old {w[1] / o[1]:.3f}x" if o and w else ""
    print(f"{tag:22s} old {fmt(o)}  new {fmt(n)}  new/old {r}{rv}")
PY
el "done"
