#!/usr/bin/env bash
# session 4, call 5: D=64 forward and backward beside cuDNN (issue 12's D=64 rows), and window 4096 + sinks at 2M
# forward + backward with a sampled verify (issue 18) on the final kernels
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/d6
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
for S in 8192 16384; do
  timeout 60 "$pack/saw" bench preset:causal --seq $S --batch 4 --heads 16 --head-dim 64 --dtype bf16 --block 128x128 \
    --pass fwd,bwd --warmup 3 --reps 10 --backend gpu --out "$res/bench/causal-$S-d64.jsonl" >> "$res/bench.log" 2>&1
  el "saw d64 $S rc=$?"
done
cat > "$res/cudnn.py" <<'PY'
# cuDNN SDPA causal, D=64, B=4 H=16 bf16: forward and backward, median of 10 after 3 (the peer that ran)
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for S in (8192, 16384):
    B, H, D = 4, 16, 64
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    do = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    flops = 4 * B * H * D * S * (S + 1) / 2
    def t(fn):
        ts = []
        for i in range(13):
            a, b = torch.cuda.Event(True), torch.cuda.Event(True)
            a.record(); fn(); b.record(); b.synchronize()
            if i >= 3: ts.append(a.elapsed_time(b))
        ts.sort(); return (ts[4] + ts[5]) / 2
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        with torch.no_grad():
            f = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        b = t(lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True))
    print(f"cudnn causal {S} d64 fwd {f:.3f} ms {flops / f / 1e9:.1f} TF bwd {b:.3f} ms {2.5 * flops / b / 1e9:.1f} TF")
PY
timeout 60 python3 "$res/cudnn.py" > "$res/cudnn.txt" 2>&1
el "cudnn rc=$?"
cat "$res/cudnn.txt"
python3 - "$res/bench" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    for r in [json.loads(l) for l in open(f)][1:]:
        print(os.path.basename(f), r.get("pass"), r.get("status"), r.get("median_ms"), r.get("useful_tflops"), r.get("kernel"))
PY
el "2M"
OUT=$res SAW_LONG_SIZES=2097152 SAW_LONG_MASKS="window sinks" SAW_LONG_VERIFY=1 timeout 240 bash "$pack/long-context.sh" \
  > "$res/long-context.txt" 2>&1
el "2M rc=$?"
tail -8 "$res/long-context.txt"
grep -h -E '^(O|LSE|dQ|dK|dV) |PASS|FAIL' "$res"/long-context/verify-*.log
el "done"
