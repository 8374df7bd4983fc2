"""sawmask.torch against sawmask.numpy (and saw's flex export, with SAW_JAR): mask_mod token by token, both
BlockMask routes tile by tile, and FlexAttention's output against a float64 reference where a device can run it."""

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed here; bench/gpu/python-bridge.sh runs these "
                                            "tests on the GPU machine, where it is")
import sawmask  # noqa: E402
import sawmask.torch as st  # noqa: E402
from sawmask import numpy as snp  # noqa: E402
from configs import PRIMITIVES, random_config  # noqa: E402

DEVICE = os.environ.get("SAWMASK_TEST_DEVICE", "cuda" if torch.cuda.is_available() else "cpu")
SEED = int(os.environ.get("SAWMASK_TEST_SEED", "20261201"))
CASES = dict(PRIMITIVES, **{f"random {SEED + n}": random_config(SEED + n) for n in range(40)})


def evaluate(mod, cfg):
    """mask_mod over every (b, h, q, kv), as create_mask does: bool [B, H, Sq, Skv] on the CPU."""
    from torch.nn.attention.flex_attention import create_mask
    b, h = st.extents(cfg)
    return create_mask(mod, b, h, cfg.seq_len_q, cfg.seq_len_kv, device=DEVICE).cpu().numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_mask_mod_matches_numpy(name):
    cfg = sawmask.load(CASES[name])
    mod = st.mask_mod(cfg, device=DEVICE)
    ours = evaluate(mod, cfg)
    want = snp.dense(cfg)
    assert np.array_equal(ours, np.broadcast_to(want, ours.shape)), mod.source


@pytest.mark.parametrize("name", sorted(CASES))
def test_create_block_mask_matches_saw_tiles(name):
    cfg = sawmask.load(CASES[name])
    bm = st.block_mask(cfg, device=DEVICE)
    assert st.compare_tiles(st.tile_classes(bm), snp.tile_classes(cfg), cfg) == "ok"


@pytest.mark.parametrize("name", sorted(CASES))
def test_from_kv_blocks_has_saw_tiles_exactly(name):
    cfg = sawmask.load(CASES[name])
    b, h = st.extents(cfg)
    tiles = np.broadcast_to(snp.tile_classes(cfg), (b, h) + snp.tile_classes(cfg).shape[2:])
    layout = {"saw": {"format": "saw.flex/1"}, "block_size": [cfg.block_q, cfg.block_kv],
              "seq_lengths": [cfg.seq_len_q, cfg.seq_len_kv], **snp.flex_arrays(tiles)}
    bm = st.block_mask(cfg, layout=layout, device=DEVICE)
    assert np.array_equal(st.tile_classes(bm), tiles)
    # from_kv_blocks derives the q-major arrays; saw's export holds the same ones
    assert np.array_equal(bm.q_num_blocks.cpu().numpy(), layout["q_num_blocks"])
    assert np.array_equal(bm.full_q_num_blocks.cpu().numpy(), layout["full_q_num_blocks"])


def test_from_kv_blocks_on_saws_own_export(oracle):
    for name in ("ragged tiles", "per head", "documents per batch", "causal offset, Sq < Skv"):
        cfg = sawmask.load(PRIMITIVES[name])
        bm = st.block_mask(cfg, layout=oracle.ask("flex", PRIMITIVES[name]), device=DEVICE)
        assert st.compare_tiles(st.tile_classes(bm), snp.tile_classes(cfg), cfg) == "ok"
        assert np.array_equal(st.tile_classes(bm), np.broadcast_to(snp.tile_classes(cfg), st.tile_classes(bm).shape))


def test_mask_mod_source_is_what_runs():
    cfg = sawmask.load(PRIMITIVES["and"])
    src = st.mask_mod(cfg, device=DEVICE).source
    assert "return q_idx >= kv_idx" in src and "and_masks(" in src
    assert "kv_idx <= q_idx" in st.mask_mod(sawmask.load(PRIMITIVES["sliding window"]), device=DEVICE).source


@pytest.mark.skipif(not torch.cuda.is_available(), reason="FlexAttention's kernels need a CUDA device here")
@pytest.mark.parametrize("name", ["ragged tiles", "per head", "documents q/kv ids", "not"])
def test_flex_attention_matches_a_float64_reference(name):
    from torch.nn.attention.flex_attention import flex_attention
    c = dict(PRIMITIVES[name])
    cfg = sawmask.load(c)
    b, h, d = cfg.batch, cfg.heads, 64
    g = torch.Generator(device="cuda").manual_seed(SEED)
    q = torch.randn(b, h, cfg.seq_len_q, d, device="cuda", generator=g)
    k = torch.randn(b, h, cfg.seq_len_kv, d, device="cuda", generator=g)
    v = torch.randn(b, h, cfg.seq_len_kv, d, device="cuda", generator=g)
    bm = st.block_mask(cfg, device="cuda")
    out = torch.compile(flex_attention)(q.bfloat16(), k.bfloat16(), v.bfloat16(), block_mask=bm,
                                        kernel_options={"BLOCK_M": min(cfg.block_q, 64), "BLOCK_N": min(cfg.block_kv, 64)})
    allowed = torch.as_tensor(np.broadcast_to(snp.dense(cfg), (b, h, cfg.seq_len_q, cfg.seq_len_kv)).copy(), device="cuda")
    s = (q.double() @ k.double().transpose(-1, -2)) / d ** 0.5
    s = s.masked_fill(~allowed, float("-inf"))
    p = torch.softmax(s, -1).nan_to_num(0.0)
    ref = p @ v.double()
    err = float((out.double() - ref).norm() / ref.norm().clamp(min=1e-30))
    assert err < 1e-2, f"{name}: relative error {err:.2e}"
