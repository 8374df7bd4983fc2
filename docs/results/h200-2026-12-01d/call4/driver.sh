#!/usr/bin/env bash
# session 4, final call: long context at 1M with FlexAttention on the final kernels, a sampled verify of window + sinks
# at 1M (the split backward), then D=256 causal 8K forward + backward with the defaults (128-row forward, wgmma
# backward) beside FlexAttention and cuDNN (peers.py of bench/gpu/d256-wgmma.sh, unchanged)
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/d5
mkdir -p "$res/d256"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
el "long context"
OUT=$res SAW_LONG_SIZES=1048576 SAW_LONG_MASKS="window chunked docs64k sinks" SAW_LONG_VERIFY=0 SAW_LONG_FLEX=1 \
  SAW_LONG_FLEX_BUDGET=130 timeout 300 bash "$pack/long-context.sh" > "$res/long-context.txt" 2>&1
el "long context rc=$?"
tail -12 "$res/long-context.txt"
el "verify sinks 1M"
SAW_JAVA_OPTS=-Xmx24g timeout 150 "$pack/saw" verify "$res/long-context/spec-sinks-1048576.json" --batch 1 --heads 32 \
  --kv-heads 8 --head-dim 128 --dtype bf16 --backend gpu --pass fwd,bwd --rows 4 --seed 21 > "$res/verify-sinks-1m.log" 2>&1
el "verify rc=$?"
tail -12 "$res/verify-sinks-1m.log"
el "d256"
SAW_JAVA_OPTS= timeout 60 "$pack/saw" bench preset:causal --seq 8192 --batch 4 --heads 16 --head-dim 256 --dtype bf16 \
  --block 64x64 --pass fwd,bwd --warmup 3 --reps 10 --backend gpu --out "$res/d256/saw.jsonl" > "$res/d256/saw.log" 2>&1
el "saw d256 rc=$?"
sed -n "/^cat >\"\$dir\/peers.py\" <<'PY'\$/,/^PY\$/p" "$pack/d256-wgmma.sh" | sed '1d;$d' > "$res/d256/peers.py"
timeout 100 python3 "$res/d256/peers.py" > "$res/d256/peers.txt" 2>&1
el "peers rc=$?"
cat "$res/d256/peers.txt"
python3 - "$res/d256/saw.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
ms = {}
for r in rows:
    print(r.get("pass"), r.get("status"), r.get("median_ms"), r.get("useful_tflops"), r.get("kernel"))
    if r.get("status") == "ok": ms[r["pass"]] = (r["median_ms"], r["useful_flops"])
if "fwd" in ms and "bwd" in ms:
    f, u = ms["fwd"]; b = ms["bwd"][0]
    print(f"saw fwd+bwd {f + b:.3f} ms {3.5 * u / ((f + b) / 1e3) / 1e12:.0f} TF")
PY
el "done"
