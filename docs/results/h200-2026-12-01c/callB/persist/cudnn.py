# the peer that ran, saved beside its numbers: cuDNN SDPA forward on the causal rows, median of 10 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for name, B, H, S in (("causal-8k", 4, 16, 8192), ("causal-16k", 4, 16, 16384)):
    try:
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, S, 128, generator=g, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        ts = []
        with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            for i in range(13):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record(); F.scaled_dot_product_attention(q, k, v, is_causal=True); b.record(); b.synchronize()
                if i >= 3: ts.append(a.elapsed_time(b))
        ts.sort(); ms = (ts[4] + ts[5]) / 2
        flops = 4 * B * H * 128 * S * (S + 1) / 2
        print(f"{name} {ms:.3f} {flops / ms / 1e9:.1f}")
        del q, k, v
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"{name} - failed:{str(e).splitlines()[0][:120]}")
    sys.stdout.flush()
