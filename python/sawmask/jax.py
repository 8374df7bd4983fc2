"""saw masks for JAX: splash-attention mask objects where the primitives map, and ejKernel SparseMask bounds.

    import sawmask.jax as sj
    m = sj.splash_mask("mask.json")      # m.mask: a splash mask (per head: MultiHeadMask); m.segment_ids: or None
    fwd, dq, dkdv = sj.sparse_masks("mask.ejkernel.json")   # saw compile --format ejkernel, as jnp int32 arrays

What maps to splash (jax.experimental.pallas.ops.tpu.splash_attention): full (FullMask), causal (CausalMask with
its offset), sliding_window (LocalMask), chunked_causal (ChunkedCausalMask), `and` / `or` of those (`&`, `|`) and
per_head (MultiHeadMask). Documents are not a splash mask: splash takes them as SegmentIds beside the mask, so
documents that are an `and` child at the top are returned as `segment_ids`. Every other primitive (prefix_lm,
sinks, global_tokens, dilated, random_blocks, block_list, painted, not) has no splash mask class; splash_mask says
so in its error, and `dense_fallback=True` gives a NumpyMask of the evaluated tokens instead (small sizes only).
"""

import numpy as np

from . import masks as M
from . import numpy as snp
from .config import load, load_export


def _splash():
    try:
        from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as sm
    except ImportError as e:
        raise ImportError("sawmask.jax needs JAX with Pallas splash attention "
                          f"(jax.experimental.pallas.ops.tpu.splash_attention); importing it failed: {e}") from None
    return sm


class SplashMask:
    """A splash mask (`mask`) and, when the config has documents, their ids (`segment_ids`: (q [B|1, Sq],
    kv [B|1, Skv]) int32 arrays for splash's SegmentIds; -1 is padding and never matches)."""

    def __init__(self, mask, segment_ids):
        self.mask = mask
        self.segment_ids = segment_ids


class NotSplash(ValueError):
    """A primitive that splash attention has no mask object for."""


def _one(sm, m, shape):
    if isinstance(m, M.Full):
        return sm.FullMask(shape)
    if isinstance(m, M.Causal):
        return sm.CausalMask(shape, offset=m.offset)
    if isinstance(m, M.SlidingWindow):
        return sm.LocalMask(shape, (m.left if m.left >= 0 else None, m.right if m.right >= 0 else None), offset=0)
    if isinstance(m, M.ChunkedCausal):
        if not hasattr(sm, "ChunkedCausalMask"):
            raise NotSplash("chunked_causal needs a JAX whose splash attention has ChunkedCausalMask")
        return sm.ChunkedCausalMask(shape, chunk_size=m.chunk)
    if isinstance(m, (M.And, M.Or)):
        parts = [_one(sm, c, shape) for c in m.children]
        out = parts[0]
        for p in parts[1:]:
            out = (out & p) if isinstance(m, M.And) else (out | p)
        return out
    kind = type(m).__name__
    if isinstance(m, M.Documents):
        raise NotSplash("documents map to splash's SegmentIds only as a child of the top-level and (or alone)")
    raise NotSplash(f"{kind} has no splash-attention mask class (splash has full, causal, local, chunked causal, "
                    "&, | and multi-head masks)")


def splash_mask(config, dense_fallback=False):
    """The config as splash-attention masks (see the module text); raises NotSplash naming what does not map."""
    sm = _splash()
    cfg = load(config)
    shape = (cfg.seq_len_q, cfg.seq_len_kv)
    if cfg.batch_period > 1 and not _documents_only_vary(cfg.mask):
        raise NotSplash("per_batch documents inside an or/not have no splash form")
    heads = cfg.heads if cfg.head_period > 1 else 1
    per_head, docs = [], None
    try:
        for h in range(heads):
            m = cfg.resolved(0, h)
            parts = list(m.children) if isinstance(m, M.And) else [m]
            found = [p for p in parts if isinstance(p, M.Documents)]
            rest = [p for p in parts if not isinstance(p, M.Documents)]
            if len(found) > 1:
                raise NotSplash("two documents masks in one and have no single SegmentIds")
            if found:
                if docs is not None and found[0] != docs:
                    raise NotSplash("heads with different documents have no single SegmentIds")
                docs = found[0]
            body = M.And(tuple(rest)) if len(rest) > 1 else (rest[0] if rest else M.Full())
            per_head.append(_one(sm, body, shape))
    except NotSplash:
        if not dense_fallback:
            raise
        d = snp.dense(cfg)
        if d.shape[0] > 1:
            raise NotSplash("a dense fallback per batch entry has no splash form") from None
        masks = [sm.NumpyMask(d[0, h]) for h in range(d.shape[1])]
        return SplashMask(masks[0] if len(masks) == 1 else sm.MultiHeadMask(masks), None)
    mask = per_head[0] if len(per_head) == 1 else sm.MultiHeadMask(per_head)
    segment_ids = None
    if docs is not None:
        full_docs = cfg.mask.children if isinstance(cfg.mask, M.And) else (cfg.mask,)
        entries = next((d for d in full_docs if isinstance(d, M.Documents)), docs).per_batch
        ids = [M.segment_ids(e, cfg.seq_len_q, cfg.seq_len_kv) for e in entries]
        q = np.stack([a for a, _ in ids])
        kv = np.stack([b for _, b in ids])
        # splash compares ids for equality only; give q and kv padding different ids so padding never matches
        q = np.where(q < 0, -1, q).astype(np.int32)
        kv = np.where(kv < 0, -2, kv).astype(np.int32)
        segment_ids = (q, kv)
    return SplashMask(mask, segment_ids)


def _documents_only_vary(m):
    if isinstance(m, M.Documents):
        return True
    if isinstance(m, M.And):
        return all(_documents_only_vary(c) or not M.varies_with_batch(c) for c in m.children)
    return not M.varies_with_batch(m)


NAMES = ("lower_bounds", "upper_bounds", "lower_full_bounds", "upper_full_bounds")


def sparse_masks(spec):
    """(forward, dq, dkdv) ejKernel SparseMask-style bounds: dicts of jnp int32 arrays [batch, 1, n] (SparseMask
    objects where ejkernel is installed). `spec` is saw's ejkernel export (path or dict) or a config small enough
    to evaluate with NumPy."""
    import jax.numpy as jnp
    try:
        data = load_export(spec)
    except Exception:
        cfg = load(spec)
        data = snp.ejkernel_bounds(snp.tile_classes(cfg), cfg.batch, cfg.heads)
    try:
        from ejkernel.kernels._triton.blocksparse_attention._mask import SparseMask
    except ImportError:
        SparseMask = dict

    def one(prefix):
        return SparseMask(**{k: jnp.asarray(np.asarray(data[prefix + k]), dtype=jnp.int32) for k in NAMES})
    fwd = one("")
    return fwd, fwd, one("dkdv_")
