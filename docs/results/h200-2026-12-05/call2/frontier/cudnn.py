# the peer that ran, saved beside its numbers: cuDNN SDPA forward and backward on the causal rows, bf16, median of 10
# CUDA-event timings after 3 warm-ups; GQA rows repeat K and V to the query heads (as leaves, so only the attention is timed)
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

def median(fn):
    ts = []
    for i in range(13):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort()
    return (ts[4] + ts[5]) / 2

for D in (128, 64):
    for name, B, H, HKV, S in (("causal-8k", 4, 16, 16, 8192), ("causal-16k", 4, 16, 16, 16384), ("gqa-32k", 1, 32, 8, 32768)):
        try:
            g = torch.Generator(device="cuda").manual_seed(0)
            q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
            k = k.repeat_interleave(H // HKV, 1).requires_grad_()
            v = v.repeat_interleave(H // HKV, 1).requires_grad_()
            do = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
            flops = 4 * B * H * D * S * (S + 1) / 2
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                with torch.no_grad():
                    fwd = median(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                def bwd():
                    q.grad = k.grad = v.grad = None
                    out.backward(do, retain_graph=True)
                bwd_ms = median(bwd)
            print(f"{name}-d{D} fwd {fwd:.3f} {flops / fwd / 1e9:.1f} bwd {bwd_ms:.3f} {2.5 * flops / bwd_ms / 1e9:.1f}")
            del q, k, v, do, out
            torch.cuda.empty_cache()
        except Exception as e:
            print(f"{name}-d{D} failed: {str(e).splitlines()[0][:120]}")
        sys.stdout.flush()
