import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
def t(fn, reps=10):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]
for name, B, S in (("causal-8k", 4, 8192), ("causal-16k", 2, 16384)):
    q, k, v = (torch.randn(B, 16, S, 256, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    flops = 4 * B * 16 * 256 * S * (S + 1) / 2
    try:
        with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ms = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        print(f"sdpa-cudnn {name} {ms:.3f} ms {flops / ms / 1e9:.0f} TF")
    except Exception as e:
        print(f"sdpa-cudnn {name} failed: {str(e).splitlines()[0][:200]}")
    del q, k, v
