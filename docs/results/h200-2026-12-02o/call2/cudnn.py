# the peer that ran: cuDNN SDPA causal forward, bf16, median of 10 CUDA-event timings after 3 warm-ups; GQA repeats K
# and V to the query heads before timing
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
def t(fn):
    ts = []
    for i in range(13):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort(); return (ts[4] + ts[5]) / 2
for D, name, B, H, HKV, S in ((64, "causal-8k", 4, 16, 16, 8192), (128, "causal-8k", 4, 16, 16, 8192), (128, "causal-16k", 4, 16, 16, 16384),
                              (256, "w-causal-8k", 4, 16, 16, 8192), (256, "w-causal-16k", 2, 16, 16, 16384)):
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16).repeat_interleave(H // HKV, 1) for _ in range(2))
    flops = 4 * B * H * D * S * (S + 1) / 2
    with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        ms = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    print(f"cudnn D={D} {name} {ms:.3f} ms {flops / ms / 1e9:.1f} TF", flush=True)
    del q, k, v
