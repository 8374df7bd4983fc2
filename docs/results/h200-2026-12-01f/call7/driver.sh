#!/usr/bin/env bash
# session 6, call 7: the dQ tile stored with each row's columns permuted (8 vector stores, no shuffles) and converted by
# bwd_dq_perm_*, A/B against main 738f2b2 (old engine jar), with checks (verify 12, sanitizers D=128 and D=64, ragged
# rows, GQA) and the 1M documents and window rows
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/e7
mkdir -p "$res/specs" "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
old=/tmp/oldpack
mkdir -p "$old/lib"; ln -s "$pack/runtime" "$old/runtime"; cp "$pack"/lib/*.jar "$old/lib/"; rm "$old"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-old.jar" "$old/lib/"; cp "$pack/saw" "$old/saw"; chmod +x "$old/saw"
el "checks"
( OUT=$res BWF_PARTS="verify sanitize" timeout -k 5 200 bash "$pack/bwd-frontier.sh" > "$res/checks.txt" 2>&1 ) &
checks=$!
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Dsaw.kernel.bwd=wgmma-ws -cp "$pack/lib/*" \
    saw.app.Main verify 'and(causal,docs(700,300,200))' --seq 1250 --heads 2 --kv-heads 1 --head-dim 64 --dtype bf16 \
    --block 128x128 --pass fwd,bwd > "$res/san64-$tool.log" 2>&1
  echo "san64 $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san64-$tool.log" | tail -1)"
done
for c in "causal --seq 1001 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16" "window(300) --seq 777 --seq-kv 900 --heads 2 --head-dim 128 --dtype fp16 --softcap 20" "causal --seq 3 --heads 2 --head-dim 128 --dtype bf16"; do
  read -ra a <<<"$c"
  SAW_JAVA_OPTS=-Dsaw.kernel.bwd=wgmma-ws timeout 60 "$pack/saw" verify "${a[@]}" --block 128x128 --pass fwd,bwd > "$res/verify-extra.log" 2>&1
  echo "verify rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify-extra.log") $(awk '$1=="dQ"{print "dQ", $2}' "$res/verify-extra.log")"
done
wait $checks
grep -A12 "== summary" "$res/checks.txt"
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
D64K=$(python3 -c "import json; print(json.dumps({'and': [{'causal': {'offset': 0}}, {'documents': {'lengths': [65536] * 16}}]}))")
spec docs64k-1m 1048576 1 32 "$D64K"
bench() { # TAG VARIANT SPEC D REPS ARGS...
  local tag=$1 var=$2 sp=$3 d=$4 reps=$5; shift 5
  local p=$pack; [[ $var == old ]] && p=$old
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
  for sp in causal-8k causal-16k; do
    for var in old new; do bench "$sp-d64-r$round" $var $sp 64 10 --batch 4 --heads 16 --kv-heads 16; done
  done
done
el "timing 1M"
for sp in docs64k-1m window-1m; do
  (( $(date +%s) - t0 > 400 )) && { el "skip $sp: time"; continue; }
  for var in old new; do bench "$sp" $var $sp 128 3 --batch 1 --heads 32 --kv-heads 8; done
  el "$sp"
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
    o, n = v.get("old"), v.get("new")
    fmt = lambda x: f"{x[1]:7.1f} TF {x[0]:9.3f} ms" if x else "   failed"
    r = f"{n[1] / o[1]:.3f}x" if o and n else "-"
    print(f"{tag:22s} old {fmt(o)}  new {fmt(n)}  new/old {r}")
PY
el "done"
