"""ragged_rows: issue 12's documents and window rows as PyTorch's ragged batches (what varlen_peers.py hands to
varlen_attn), checked on the specs frontier_specs writes and on seeded random document lengths."""

import json
import os
import random
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
import ragged_rows  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def frontier_specs(tmp_path):
    lib = os.path.join(HERE, "..", "gpu", "specs-lib.sh")
    subprocess.run(["bash", "-c", f'. "{lib}" && frontier_specs "{tmp_path}"'], check=True)
    return {r: json.load(open(tmp_path / f"{r}.json")) for r in ragged_rows.ROWS}


def allowed_brute(spec, q, k):
    """The row's mask at one (query, key) pair of one batch row, from the spec's own definition."""
    mask = spec["mask"]
    if "sliding_window" in mask:
        return k <= q and q - k <= mask["sliding_window"]["left"]
    lengths = next(m["documents"]["lengths"] for m in mask["and"] if "documents" in m)
    starts = ragged_rows.offsets(lengths)
    doc = lambda t: max(i for i, s in enumerate(starts[:-1]) if s <= t)
    return k <= q and doc(q) == doc(k)


def allowed_ragged(cu, window, q, k):
    """The same pair as varlen_attn sees it: causal inside the sequence that holds both, within the window if any."""
    seq = lambda t: max(i for i, s in enumerate(cu[:-1]) if s <= t)
    return seq(q) == seq(k) and k <= q and (window is None or q - k <= window)


def test_the_frontier_rows_cover_every_token_and_mean_the_same_mask(tmp_path):
    rng = random.Random(7)
    for row, spec in frontier_specs(tmp_path).items():
        lengths, window = ragged_rows.ragged_batch(spec)
        cu = ragged_rows.offsets(lengths)
        S, B = spec["seq_len_q"], spec["batch"]
        assert cu[-1] == B * S and min(lengths) > 0, row
        assert (window is not None) == row.startswith("window"), row
        # batch row b's token t is ragged token b * S + t: compare the masks at random pairs near the diagonal
        for _ in range(400):
            b, q = rng.randrange(B), rng.randrange(S)
            k = max(0, q - rng.randrange(1200))
            assert allowed_brute(spec, q, k) == allowed_ragged(cu, window, b * S + q, b * S + k), (row, b, q, k)


def test_the_check_prefix_ends_on_a_document_edge():
    rng = random.Random(11)
    for _ in range(200):
        lengths = [rng.randrange(1, 900) for _ in range(rng.randrange(1, 30))]
        cu = ragged_rows.offsets(lengths)
        n = ragged_rows.prefix_tokens(cu, None)
        assert n in cu[1:], "whole documents only"
        assert n <= 2048 or n == cu[1], "at most 2048 tokens unless the first document alone is longer"
        assert n == cu[1] or all(c > 2048 or c <= n for c in cu), "the longest whole-document prefix"
    assert ragged_rows.prefix_tokens([0, 16384, 32768], 1024) == 2048


@pytest.mark.parametrize("mask, message", [
    ({"sliding_window": {"left": 64, "right": 3}}, "mask.sliding_window must be causal"),
    ({"and": [{"causal": {"offset": 0}}, {"documents": {"lengths": [10, 20]}}]}, "lengths sum to 30, not seq_len_q 64"),
    ({"chunked_causal": {"chunk": 8}}, "mask must be sliding_window or and(causal, documents)"),
])
def test_a_row_it_cannot_express_is_named(mask, message):
    spec = {"name": "odd", "seq_len_q": 64, "seq_len_kv": 64, "batch": 1, "heads": 1, "mask": mask}
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ragged_rows.ragged_batch(spec)
