# The peers of issue 12's packed-document and window rows, the way PyTorch users run packed sequences: the
# documents as one ragged batch (cumulative sequence offsets, no mask), causal inside each, through
#   - torch.nn.attention.varlen.varlen_attn (PyTorch's FlashAttention varlen kernels), documents and window rows;
#   - scaled_dot_product_attention on nested jagged tensors under the cuDNN backend (documents rows).
# Usage: python3 varlen_peers.py SPECS_DIR RESULTS_DIR. SPECS_DIR holds frontier_specs' mask files (bench/gpu/specs-lib.sh);
# RESULTS_DIR saw's saw.bench/1 results of the same rows, whose useful FLOPs (the same mask) turn each peer's time
# into useful TFLOP/s. bf16, D = 128, median of 10 CUDA-event timings after 3 warm-ups, forward and backward (dQ, dK,
# dV). Each peer is first checked against an fp32 reference on its first tokens (documents and window rows depend only
# on earlier tokens, so a prefix is exact); a peer whose error is above 2e-2 is reported and not timed.
# Output lines: "ROW PEER fwd MS TFLOPS bwd MS TFLOPS", or "ROW PEER failed: WHY", or "ROW PEER check: ERR".
import inspect, json, os, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ragged_rows import ROWS, offsets, prefix_tokens, ragged_batch  # noqa: E402

D = 128
specs_dir, results_dir = sys.argv[1], sys.argv[2]


FLUSH = torch.empty(256 << 20, dtype=torch.int8, device="cuda")


def median(fn):
    """Median of 10 CUDA-event timings after 3 warm-ups, each after a 256 MiB fill (as triton's do_bench and saw's timed
    runs: the L2 cache emptied, Python's launches queued behind the fill)."""
    ts = []
    for i in range(13):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        FLUSH.zero_(); a.record(); fn(); b.record(); b.synchronize()
        if i >= 3:
            ts.append(a.elapsed_time(b))
    ts.sort()
    return (ts[4] + ts[5]) / 2


def useful_flops(row):
    out = {}
    with open(os.path.join(results_dir, f"{row}-d{D}.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if "median_ms" in r:
                out[r["pass"]] = r["useful_flops"]
    return out


def reference(q, k, v, allowed):
    # q, k, v: (T, H, D) over the first T tokens; allowed: (T, T) bool
    qf, kf, vf = (x.float().transpose(0, 1) for x in (q, k, v))
    s = (qf @ kf.transpose(1, 2)) / D ** 0.5
    s = s.masked_fill(~allowed, float("-inf"))
    return (torch.softmax(s, -1) @ vf).transpose(0, 1)


def varlen(q, k, v, cu, cu64, lengths, window):
    from torch.nn.attention.varlen import varlen_attn
    params = inspect.signature(varlen_attn).parameters
    kw = {}
    if window is not None:
        kw["window_size"] = (window, 0)
    elif "is_causal" in params:
        kw["is_causal"] = True
    else:
        kw["window_size"] = (-1, 0)
    return varlen_attn(q, k, v, cu, cu, max(lengths), max(lengths), **kw)


def njt_cudnn(q, k, v, cu, cu64, lengths, window):
    if window is not None:
        raise RuntimeError("no window in SDPA")
    # the lengths' bounds given, so that building the views reads nothing back from the GPU
    nest = lambda x: torch.nested.nested_tensor_from_jagged(x, cu64, min_seqlen=min(lengths),
                                                            max_seqlen=max(lengths)).transpose(1, 2)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        o = F.scaled_dot_product_attention(nest(q), nest(k), nest(v), is_causal=True)
    return o.transpose(1, 2).values()


for row in ROWS:
    spec = json.load(open(os.path.join(specs_dir, f"{row}.json")))
    S, B, H = spec["seq_len_q"], spec["batch"], spec["heads"]
    lengths, window = ragged_batch(spec)
    cu_list = offsets(lengths)
    cu = torch.tensor(cu_list, device="cuda", dtype=torch.int32)
    T = B * S
    cu64 = cu.long()
    flops = useful_flops(row)
    g = torch.Generator(device="cuda").manual_seed(0)
    mk = lambda: torch.randn(T, H, D, generator=g, device="cuda", dtype=torch.bfloat16)
    q0, k0, v0, do = mk(), mk(), mk(), mk()
    # the reference's prefix: whole documents up to about 2K tokens, or 2K tokens of the window row
    n = prefix_tokens(cu_list, window)
    i = torch.arange(n, device="cuda")
    allowed = i[None, :] <= i[:, None]
    if window is not None:
        allowed &= i[:, None] - i[None, :] <= window
    else:
        doc = torch.bucketize(i, cu64[1:], right=True)
        allowed &= doc[:, None] == doc[None, :]
    ref = reference(q0[:n], k0[:n], v0[:n], allowed)
    for name, fn in (("varlen_attn", varlen), ("cuDNN-NJT", njt_cudnn)):
        try:
            q, k, v = (x.clone().requires_grad_() for x in (q0, k0, v0))
            with torch.no_grad():
                err = (fn(q0, k0, v0, cu, cu64, lengths, window)[:n].float() - ref).abs().max().item()
            print(f"{row} {name} check: {err:.2e}")
            if not err <= 2e-2:
                continue
            with torch.no_grad():
                fwd = median(lambda: fn(q0, k0, v0, cu, cu64, lengths, window))
            out = fn(q, k, v, cu, cu64, lengths, window)
            def bwd():
                q.grad = k.grad = v.grad = None
                out.backward(do, retain_graph=True)
            bwd_ms = median(bwd)
            print(f"{row} {name} fwd {fwd:.3f} {flops['fwd'] / fwd / 1e9:.1f} bwd {bwd_ms:.3f} "
                  f"{flops['bwd'] / bwd_ms / 1e9:.1f}")
            del out, q, k, v
        except Exception as e:
            print(f"{row} {name} failed: {str(e).splitlines()[0][:160] if str(e) else type(e).__name__}")
        torch.cuda.empty_cache()
        sys.stdout.flush()
