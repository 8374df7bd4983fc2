#!/usr/bin/env bash
# Twenty-second session, call 11: the D = 64 backward under Nsight Compute, saw's main kernel (wgmma-ws) against
# cuDNN SDPA's, causal 16K B = 4 H = 16 bf16, one launch each (clock control off): cycles, SM clock, pipe and memory
# throughput, warp states, the kernels' names (cuDNN's tile) and launch shapes. For the 128-row q step planned in
# docs/kernel-notes.md. Pack: .gpupack (main af9764a's kernels).
set -uo pipefail
pack=$PWD/.gpupack
res=/tmp/c11
mkdir -p "$res"
exec > >(tee "$OUT/driver.log") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis"
sum() { grep -E '^  [a-zA-Z_0-9]+.*\(|SM Frequency|Elapsed Cycles|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Grid Size|Block Size|Registers Per|Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Issue Slots Busy|Warp Cycles Per Issued Instruction|Executed Ipc Active' "$1" | head -${2:-20}; }
# shellcheck disable=SC2086
timeout 150 ncu --clock-control none --target-processes all -k regex:'^bwd_wgmmaws_bf16_d64' --launch-skip 2 --launch-count 1 \
  $SECTIONS -f -o "$res/prof-saw-bwd64" \
  "$pack/saw" bench preset:causal --backend gpu --seq 16384 --batch 4 --heads 16 --head-dim 64 --block 128x128 \
  --pass bwd --reps 1 --warmup 2 --out /tmp/ncu-saw.jsonl > "$res/prof-saw-bwd64.log" 2>&1
echo "ncu saw rc=$?"
ncu -i "$res/prof-saw-bwd64.ncu-rep" --page details --print-details all > "$res/prof-saw-bwd64-details.txt" 2>&1
sum "$res/prof-saw-bwd64-details.txt"
cat > "$res/cudnn-b64.py" <<'PY'
# the peer under ncu: cuDNN SDPA causal forward + backward (bf16, D = 64, B = 4, H = 16, S = 16384), twice; the
# second backward's cuDNN kernels are profiled
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(4, 16, 16384, 64, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
do = torch.randn(4, 16, 16384, 64, generator=g, device="cuda", dtype=torch.bfloat16)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(2):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.backward(do)
torch.cuda.synchronize()
PY
# shellcheck disable=SC2086
timeout 150 ncu --clock-control none --target-processes all -k regex:'(?i)(bprop|dot_do|dgrad)' \
  --launch-skip 2 --launch-count 3 $SECTIONS -f -o "$res/prof-cudnn-bwd64" \
  python3 "$res/cudnn-b64.py" > "$res/prof-cudnn-bwd64.log" 2>&1
echo "ncu cudnn rc=$?"
ncu -i "$res/prof-cudnn-bwd64.ncu-rep" --page details --print-details all > "$res/prof-cudnn-bwd64-details.txt" 2>&1
sum "$res/prof-cudnn-bwd64-details.txt" 60
rm -f "$res"/*.ncu-rep
tar czf "$OUT/c11.tgz" -C /tmp c11
