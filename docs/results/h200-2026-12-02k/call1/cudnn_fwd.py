# the peer that ran, saved beside its numbers: cuDNN SDPA forward on the dense causal rows, median of 20 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for D in (64, 128):
    for name, B, H, HKV, S in (("c8k", 4, 16, 16, 8192), ("c16k", 4, 16, 16, 16384), ("gqa32k", 1, 32, 8, 32768)):
        g = torch.Generator(device="cuda").manual_seed(0)
        q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ts = []
            for i in range(23):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record(); F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=H != HKV); b.record(); b.synchronize()
                if i >= 3: ts.append(a.elapsed_time(b))
        ts.sort(); ms = (ts[9] + ts[10]) / 2
        print(f"cudnn {name}-d{D} {ms:.3f} ms {4 * B * H * D * S * (S + 1) / 2 / ms / 1e9:.1f} TFLOP/s")
        sys.stdout.flush()
