# the peer under ncu: three cuDNN SDPA causal forwards (bf16, D = 256); the third is profiled
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
B, H, HKV, S = (int(x) for x in sys.argv[1:5])
g = torch.Generator(device="cuda").manual_seed(0)
q = torch.randn(B, H, S, 256, generator=g, device="cuda", dtype=torch.bfloat16)
k, v = (torch.randn(B, HKV, S, 256, generator=g, device="cuda", dtype=torch.bfloat16).repeat_interleave(H // HKV, 1) for _ in range(2))
torch.cuda.synchronize()
with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
torch.cuda.synchronize()
