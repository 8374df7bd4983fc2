# the peer under ncu: cuDNN SDPA causal forward (no grad) twice, then forward + backward once (bf16, D = 128, B = 4,
# H = 16, S = 16384); every cuDNN attention kernel of the last forward + backward is profiled
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(4, 16, 16384, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
do = torch.randn(4, 16, 16384, 128, generator=g, device="cuda", dtype=torch.bfloat16)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    with torch.no_grad():
        for _ in range(2):
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.backward(do)
torch.cuda.synchronize()
