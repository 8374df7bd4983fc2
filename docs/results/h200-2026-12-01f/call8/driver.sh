#!/usr/bin/env bash
# session 6, call 8 (final kernels, a0fe091 + notes): verify 12 of the backward, the dense backward rows with cuDNN
# beside, issue 18's 1M table with FlexAttention, and a sampled verify of the 64K documents at 1M
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/e8
mkdir -p "$res/specs" "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
el "checks"
OUT=$res BWF_PARTS="verify" timeout -k 5 120 bash "$pack/bwd-frontier.sh" > "$res/checks.txt" 2>&1
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
bench() { # TAG SPEC D ARGS...
  local tag=$1 sp=$2 d=$3; shift 3
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "$pack/saw" bench "$res/specs/$sp.json" "$@" --head-dim $d --dtype bf16 --block 128x128 \
    --pass bwd --backend gpu --reps 10 --warmup 2 --out "$res/bench/$tag.jsonl" >> "$res/bench.log" 2>&1
  echo "$tag rc=$?" >> "$res/bench.log"
}
el "dense backward rows"
for row in "causal-8k|4 16 16" "causal-16k|4 16 16" "gqa-32k|1 32 8" "docs64-32k|1 16 16"; do
  sp=${row%%|*}; read -r b h hk <<<"${row#*|}"
  bench "$sp-d128" $sp 128 --batch $b --heads $h --kv-heads $hk
done
for sp in causal-8k causal-16k; do bench "$sp-d64" $sp 64 --batch 4 --heads 16 --kv-heads 16; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    rs = [json.loads(l) for l in open(f)][1:]
    ok = [r for r in rs if r.get("status") == "ok" and r.get("pass") == "bwd"]
    print(os.path.basename(f)[:-6], f"{ok[0]['useful_tflops']:.1f} TF {ok[0]['median_ms']:.3f} ms {ok[0].get('kernel','')}" if ok else "failed")
PY
el "cudnn"
cp "$root/.gpupack-e5-cudnn.py" "$res/cudnn.py"
timeout 90 python3 "$res/cudnn.py" > "$res/cudnn.txt" 2>&1
cat "$res/cudnn.txt"
el "long context 1M with Flex"
OUT=$res SAW_LONG_SIZES=1048576 SAW_LONG_MASKS="window chunked docs64k sinks" SAW_LONG_VERIFY=0 SAW_LONG_FLEX=1 \
  SAW_LONG_FLEX_BUDGET=120 timeout -k 5 250 bash "$pack/long-context.sh" > "$res/long-1m.txt" 2>&1
el "long rc=$?"
tail -16 "$res/long-1m.txt"
if (( $(date +%s) - t0 < 330 )); then
  el "sampled verify, 64K documents at 1M, forward and backward"
  timeout -k 5 100 "$pack/saw" verify "$res/long-context/spec-docs64k-1048576.json" --batch 1 --heads 32 --kv-heads 8 --head-dim 128 \
    --dtype bf16 --backend gpu --pass fwd,bwd --rows 4 --seed 6 > "$res/verify-docs64k-1m.log" 2>&1
  echo "rc=$?" >> "$res/verify-docs64k-1m.log"; tail -12 "$res/verify-docs64k-1m.log"
fi
el done
