# the peer that ran, saved beside its numbers: cuDNN SDPA backward on the dense causal rows, median of 10 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for name, B, H, HKV, S in (("causal-8k", 4, 16, 16, 8192), ("causal-16k", 4, 16, 16, 16384), ("gqa-32k", 1, 32, 8, 32768)):
    try:
        g = torch.Generator(device="cuda").manual_seed(0)
        q = torch.randn(B, H, S, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(B, HKV, S, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(B, HKV, S, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        do = torch.randn(B, H, S, 128, generator=g, device="cuda", dtype=torch.bfloat16)
        if H != HKV:  # K/V repeated to H heads as leaves, so that only cuDNN's backward is timed (dK/dV per q head)
            k = k.detach().repeat_interleave(H // HKV, 1).requires_grad_()
            v = v.detach().repeat_interleave(H // HKV, 1).requires_grad_()
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            ts = []
            for i in range(13):
                q.grad = k.grad = v.grad = None
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record(); out.backward(do, retain_graph=True); b.record(); b.synchronize()
                if i >= 3: ts.append(a.elapsed_time(b))
        ts.sort(); ms = (ts[4] + ts[5]) / 2
        flops = 2.5 * 4 * B * H * 128 * S * (S + 1) / 2
        print(f"{name} {ms:.3f} {flops / ms / 1e9:.1f}")
        del q, k, v, do, out
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"{name} - failed:{str(e).splitlines()[0][:120]}")
    sys.stdout.flush()
