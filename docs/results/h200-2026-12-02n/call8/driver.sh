#!/usr/bin/env bash
# Session 14, call 8: the same comparison as calls 6-7 at D = 128, causal 16K B = 4 H = 16 bf16: saw's forward
# (wgmma-pp) and backward (wgmma-ws main kernel) against cuDNN SDPA's kernels, one launch each under Nsight Compute
# (clock control off; speed-of-light section): cycles, SM clock, pipe and memory throughput. The pack is .gpupack-n4 with
# its libjvm.so stripped (.gpupack-n8), to fit the 64 MiB the device call carries.
set -uo pipefail
pack=$PWD/.gpupack-n8
res=$OUT/n8
mkdir -p "$res"
exec > >(tee "$res/driver.log") 2>&1
sum() { grep -E '^  [a-zA-Z_0-9]+.*\(|SM Frequency|Elapsed Cycles|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Grid Size|Registers Per' "$1" | head -${2:-12}; }
saw_prof() { # TAG PASS KERNEL_REGEX
  timeout 150 ncu --clock-control none --target-processes all -k regex:"$3" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats -f -o "$res/prof-$1" \
    "$pack/saw" bench preset:causal --backend gpu --seq 16384 --batch 4 --heads 16 --head-dim 128 --block 128x128 \
    --pass "$2" --reps 1 --warmup 2 --out "/tmp/ncu-$1.jsonl" > "$res/prof-$1.log" 2>&1
  echo "ncu $1 rc=$?"
  ncu -i "$res/prof-$1.ncu-rep" --page details --print-details all > "$res/prof-$1-details.txt" 2>&1
  sum "$res/prof-$1-details.txt"
  rm -f "$res/prof-$1.ncu-rep"
}
saw_prof saw-fwd fwd '^fwd_wgmmapp_bf16_d128'
saw_prof saw-bwd bwd '^bwd_wgmmaws_bf16_d128'
cat > "$res/cudnn-fb.py" <<'PY'
# the peer under ncu: cuDNN SDPA causal forward (no grad) twice, then forward + backward once (bf16, D = 128, B = 4,
# H = 16, S = 16384); every cuDNN attention kernel of the last forward + backward is profiled
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(4, 16, 16384, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
do = torch.randn(4, 16, 16384, 128, generator=g, device="cuda", dtype=torch.bfloat16)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    with torch.no_grad():
        for _ in range(2):
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.backward(do)
torch.cuda.synchronize()
PY
timeout 150 ncu --clock-control none --target-processes all -k regex:'(?i)(sdpa|fprop|bprop|flash|fmha|dgrad|dot_do)' \
  --launch-skip 2 --launch-count 6 --section SpeedOfLight --section LaunchStats -f -o "$res/prof-cudnn" \
  python3 "$res/cudnn-fb.py" > "$res/prof-cudnn.log" 2>&1
echo "ncu cudnn rc=$?"
ncu -i "$res/prof-cudnn.ncu-rep" --page details --print-details all > "$res/prof-cudnn-details.txt" 2>&1
sum "$res/prof-cudnn-details.txt" 60
rm -f "$res/prof-cudnn.ncu-rep"
cd "$OUT" && tar czf n8-logs.tgz n8 && ls -la "$OUT/n8"
