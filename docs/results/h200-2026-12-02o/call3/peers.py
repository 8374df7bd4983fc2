# the peer code that ran, saved beside its numbers: FlexAttention (torch.compile, default options) and cuDNN SDPA
import torch, torch.nn.functional as F
from torch.nn.attention import flex_attention as fx, sdpa_kernel, SDPBackend
B, H, S, D = 4, 16, 8192, 256
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
do = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
fwd_flops = 4 * B * H * D * S * (S + 1) / 2
def t(fn, reps=10):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]
def both(name, attn):
    try:
        with torch.no_grad():
            ms = t(lambda: attn(q, k, v))
        print(f"{name} fwd {ms:.3f} ms {fwd_flops / ms / 1e9:.0f} TF")
    except Exception as e:
        print(f"{name} fwd failed: {str(e).splitlines()[0][:200]}")
    try:
        out = attn(q, k, v)
        ms = t(lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True))
        print(f"{name} bwd {ms:.3f} ms {2.5 * fwd_flops / ms / 1e9:.0f} TF")
    except Exception as e:
        print(f"{name} bwd failed: {str(e).splitlines()[0][:200]}")
bm = fx.create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, S, S, device="cuda")
flex = torch.compile(fx.flex_attention, dynamic=False)
both("flexattention", lambda q, k, v: flex(q, k, v, block_mask=bm))
def cudnn(q, k, v):
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
both("sdpa-cudnn", cudnn)
