# the peer that ran: cuDNN SDPA causal forward and backward at D = 256, bf16; median of 10 CUDA-event timings after 3
# warm-ups; GQA repeats K and V to the query heads as leaves (so only the attention is timed)
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
def t(fn, reps=10):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return (ts[4] + ts[5]) / 2
for name, B, H, HKV, S in (("causal-8k", 4, 16, 16, 8192), ("causal-16k", 2, 16, 16, 16384), ("gqa-16k", 1, 32, 8, 16384)):
    D = 256
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16).requires_grad_()
    k, v = (torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16).repeat_interleave(H // HKV, 1).requires_grad_() for _ in range(2))
    do = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    flops = 4 * B * H * D * S * (S + 1) / 2
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        with torch.no_grad():
            f = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        b = t(lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True))
    print(f"cudnn {name} fwd {f:.3f} ms {flops / f / 1e9:.1f} TF bwd {b:.3f} ms {2.5 * flops / b / 1e9:.1f} TF fwd+bwd {f + b:.3f} ms", flush=True)
    del q, k, v, do, out
