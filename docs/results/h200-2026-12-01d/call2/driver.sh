#!/usr/bin/env bash
# session 4, call 2: D=128 backward with per-warpgroup dQ (m1: bulk tiles, 2-stage ring; m2: atomics, 3 stages)
# against fc36d3a (old); then long-context.sh (1M, 4 masks, FlexAttention) with the winner
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/d3
mkdir -p "$res/specs" "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
mkpack() { # DIR JAR
  mkdir -p "$1/lib"; ln -s "$pack/runtime" "$1/runtime"; cp "$pack"/lib/*.jar "$1/lib/"; rm "$1"/lib/saw-engine-*.jar
  cp "$2" "$1/lib/"; cp "$pack/saw" "$pack/long-context.sh" "$1/"; chmod +x "$1/saw"
}
mkpack /tmp/p-old "$root/.oldjar/saw-engine-old.jar"
mkpack /tmp/p-m2 "$root/.oldjar/saw-engine-m2.jar"
ln -s "$pack" /tmp/p-m1
el "checks"
OUT=$res BWF_PARTS="verify sanitize" timeout 150 bash "$pack/bwd-frontier.sh" > "$res/frontier-checks-m1.txt" 2>&1
el "frontier m1 rc=$?"
pids=()
n=0
for c in "causal --seq 4096 --heads 4 --kv-heads 1 --head-dim 128 --dtype fp16" \
         "docs(700,1500,1200,500) --seq 3900 --heads 2 --head-dim 128 --dtype bf16 --softcap 30" \
         "random(128,128,2,7) --seq 4096 --heads 4 --kv-heads 1 --head-dim 128 --dtype fp16" \
         "causal(3096) --seq 1000 --seq-kv 4096 --heads 2 --head-dim 128 --dtype bf16 --sinks"; do
  read -ra a <<<"$c"; n=$((n + 1))
  ( timeout 100 /tmp/p-m2/saw verify "${a[@]}" --block 128x128 --pass fwd,bwd > "$res/v-m2-$n.log" 2>&1; echo "rc=$? $c" >> "$res/v-m2-$n.log" ) &
  pids+=($!)
done
wait "${pids[@]}"
el "m2 checks done"
for f in "$res"/v-m2-*.log; do echo "m2 verify: $(tail -1 $f) :: $(grep -E '^(PASS|FAIL)' $f | tail -1)"; done

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
bench() { # TAG VARIANT SPEC D REPS ARGS...
  local tag=$1 var=$2 sp=$3 d=$4 reps=$5; shift 5
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "/tmp/p-$var/saw" bench "$res/specs/$sp.json" "$@" --head-dim $d --dtype bf16 --block 128x128 \
    --pass bwd --backend gpu --reps $reps --warmup $([[ $reps == 3 ]] && echo 1 || echo 2) --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
  echo "$tag $var rc=$?" >> "$res/bench.log"
}
el "timing"
for row in "causal-8k|4 16 16" "causal-16k|4 16 16" "gqa-32k|1 32 8" "docs64-32k|1 16 16"; do
  sp=${row%%|*}; read -r b h hk <<<"${row#*|}"
  for var in old m1 m2; do bench "$sp-d128" $var $sp 128 10 --batch $b --heads $h --kv-heads $hk; done
done
for var in old m1 m2; do bench window-1m $var window-1m 128 3 --batch 1 --heads 32 --kv-heads 8; done
el "summary"
python3 - "$res/bench" <<'PY' | tee "$res/ab.txt"
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    try:
        rs = [json.loads(l) for l in open(f)][1:]
        ok = [r for r in rs if r.get("status") == "ok" and r.get("pass") == "bwd"]
        rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"]) if ok else None
    except Exception:
        rows[tag][var] = None
score = collections.defaultdict(list)
for tag, v in rows.items():
    o = v.get("old")
    line = f"{tag:16s}"
    for var in ("old", "m1", "m2"):
        x = v.get(var)
        line += f"  {var} {x[1]:6.1f} TF {x[0]:9.3f} ms" if x else f"  {var} failed"
        if x and o and var != "old":
            line += f" ({x[1] / o[1]:.3f}x)"
            if not tag.startswith("docs64-32k"):
                score[var].append(x[1] / o[1])
    print(line)
best = max(("m1", "m2"), key=lambda k: sum(score[k]) / max(1, len(score[k])) if score[k] else 0)
print("winner", best, {k: round(sum(s) / len(s), 4) for k, s in score.items() if s})
PY
win=$(awk '/^winner/ {print $2}' "$res/ab.txt")
el "long context with $win"
cd "$root"
OUT=$res SAW_LONG_SIZES=1048576 SAW_LONG_MASKS="window chunked docs64k sinks" SAW_LONG_VERIFY=0 SAW_LONG_FLEX=1 \
  SAW_LONG_FLEX_BUDGET=130 timeout 330 bash "/tmp/p-$win/long-context.sh" > "$res/long-context.txt" 2>&1
el "long context rc=$?"
tail -20 "$res/long-context.txt"
el "done"
