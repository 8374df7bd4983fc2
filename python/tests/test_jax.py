"""sawmask.jax against sawmask.numpy: splash masks (with segment ids) token by token, and ejKernel bounds."""

import numpy as np
import pytest

pytest.importorskip("jax", reason="JAX is not installed here; bench/gpu/python-bridge.sh runs these tests on the "
                                  "GPU machine, where it is")
import sawmask  # noqa: E402
import sawmask.jax as sj  # noqa: E402
from sawmask import numpy as snp  # noqa: E402
from configs import PRIMITIVES, config  # noqa: E402

MAPPED = {
    "full": PRIMITIVES["full"],
    "causal": PRIMITIVES["causal"],
    "causal offset, Sq < Skv": PRIMITIVES["causal offset, Sq < Skv"],
    "sliding window": PRIMITIVES["sliding window"],
    "sliding window both sides": PRIMITIVES["sliding window both sides"],
    "chunked causal": PRIMITIVES["chunked causal"],
    "and": PRIMITIVES["and"],
    "ragged tiles (documents as segment ids)": PRIMITIVES["ragged tiles"],
    "documents with padding": PRIMITIVES["documents lengths with padding"],
    "per head": config({"per_head": [{"causal": {}}, {"sliding_window": {"left": 8, "right": 0}},
                                     {"or": [{"causal": {"offset": -3}}, {"full": {}}]}]}, heads=4),
}


def splash_dense(m, cfg):
    sq, skv = cfg.seq_len_q, cfg.seq_len_kv
    heads = cfg.heads if cfg.head_period > 1 else 1
    if heads > 1:
        tokens = np.stack([np.asarray(m.mask[h, :, :]) for h in range(heads)])[None]
    else:
        tokens = np.asarray(m.mask[:, :])[None, None]
    tokens = tokens.astype(bool)
    if m.segment_ids is not None:
        q, kv = m.segment_ids
        tokens = tokens & (q[:, None, :, None] == kv[:, None, None, :])
    return tokens


@pytest.mark.parametrize("name", sorted(MAPPED))
def test_splash_mask_matches_numpy(name):
    cfg = sawmask.load(MAPPED[name])
    got = splash_dense(sj.splash_mask(cfg), cfg)
    want = snp.dense(cfg)
    shape = np.broadcast_shapes(got.shape, want.shape)
    assert np.array_equal(np.broadcast_to(got, shape), np.broadcast_to(want, shape))


@pytest.mark.parametrize("name", ["sinks", "prefix lm", "not", "random blocks"])
def test_what_does_not_map_says_so(name):
    cfg = sawmask.load(PRIMITIVES[name])
    with pytest.raises(sj.NotSplash, match="splash"):
        sj.splash_mask(cfg)
    m = sj.splash_mask(cfg, dense_fallback=True)
    assert np.array_equal(splash_dense(m, cfg), snp.dense(cfg))


def test_sparse_masks_hold_saws_bounds():
    cfg = sawmask.load(PRIMITIVES["ragged tiles"])
    fwd, dq, dkdv = sj.sparse_masks(cfg)
    bounds = snp.ejkernel_bounds(snp.tile_classes(cfg), cfg.batch, cfg.heads)
    get = (lambda m, k: getattr(m, k)) if not isinstance(fwd, dict) else (lambda m, k: m[k])
    for k in sj.NAMES:
        assert np.array_equal(np.asarray(get(fwd, k)), bounds[k])
        assert np.array_equal(np.asarray(get(dkdv, k)), bounds["dkdv_" + k])
