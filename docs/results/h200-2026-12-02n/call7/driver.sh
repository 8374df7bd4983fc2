#!/usr/bin/env bash
# Session 14, call 7: cuDNN SDPA's D = 256 causal forward under the same Nsight Compute settings as call 6 (one launch,
# clock control off, speed-of-light section): its cycles against saw's, to tell per-cycle work from clock.
set -uo pipefail
res=$OUT/n7
mkdir -p "$res"
exec > >(tee "$res/driver.log") 2>&1
cat > "$res/cudnn1.py" <<'PY'
# the peer under ncu: three cuDNN SDPA causal forwards (bf16, D = 256); the third is profiled
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
B, H, HKV, S = (int(x) for x in sys.argv[1:5])
g = torch.Generator(device="cuda").manual_seed(0)
q = torch.randn(B, H, S, 256, generator=g, device="cuda", dtype=torch.bfloat16)
k, v = (torch.randn(B, HKV, S, 256, generator=g, device="cuda", dtype=torch.bfloat16).repeat_interleave(H // HKV, 1) for _ in range(2))
torch.cuda.synchronize()
with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
torch.cuda.synchronize()
PY
prof() { # TAG B H HKV S
  timeout 120 ncu --clock-control none --target-processes all -k regex:'(?i)(sdpa|fprop|flash|fmha|attn)' --launch-skip 2 \
    --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats -f -o "$res/prof-$1" \
    python3 "$res/cudnn1.py" "$2" "$3" "$4" "$5" > "$res/prof-$1.log" 2>&1
  echo "ncu $1 rc=$?"
  ncu -i "$res/prof-$1.ncu-rep" --page details --print-details all > "$res/prof-$1-details.txt" 2>&1
  grep -E '^  [a-z_0-9]+.*\(|SM Frequency|Elapsed Cycles|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|L2 Hit|Grid Size|Block Size|Registers Per|Shared Memory Config' "$res/prof-$1-details.txt" | head -16
  rm -f "$res/prof-$1.ncu-rep"
}
prof cudnn-causal8k 4 16 16 8192
prof cudnn-causal16k 2 16 16 16384
cd "$OUT" && tar czf n7-logs.tgz n7 && ls -la "$OUT/n7"
