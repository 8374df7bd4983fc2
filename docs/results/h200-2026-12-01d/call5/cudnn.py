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
