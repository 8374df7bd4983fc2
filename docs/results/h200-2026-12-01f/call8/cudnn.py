# cuDNN SDPA backward (the peer that ran, saved beside its numbers): causal D=128 and D=64, GQA 32K with K/V repeated
# to H heads as leaves, median of 10 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for name, B, H, HKV, S, D in (("causal-8k", 4, 16, 16, 8192, 128), ("causal-16k", 4, 16, 16, 16384, 128),
                              ("gqa-32k", 1, 32, 8, 32768, 128), ("causal-8k", 4, 16, 16, 8192, 64),
                              ("causal-16k", 4, 16, 16, 16384, 64)):
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    k = k.repeat_interleave(H // HKV, 1).requires_grad_()
    v = v.repeat_interleave(H // HKV, 1).requires_grad_()
    do = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        ts = []
        for i in range(13):
            q.grad = k.grad = v.grad = None
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); out.backward(do, retain_graph=True); b.record(); b.synchronize()
            if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort(); ms = (ts[4] + ts[5]) / 2
    print(f"cudnn {name} d{D} {ms:.3f} ms {2.5 * 4 * B * H * D * S * (S + 1) / 2 / ms / 1e9:.1f} TF")
    del q, k, v, do, out; torch.cuda.empty_cache(); sys.stdout.flush()
