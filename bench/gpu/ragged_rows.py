"""The documents and window rows of issue 12's table (bench/gpu/specs-lib.sh's frontier_specs) as PyTorch's ragged
batches, for varlen_peers.py: no torch here, so the CPU tests (bench/tests/test_ragged_rows.py) check it."""

ROWS = ("docs64-32k", "docs8-8k", "docs8-16k", "window1024-16k")


def ragged_batch(spec):
    """The row as PyTorch's ragged batch: (each sequence's length, the batch rows one after another; the window's left
    reach, or None for documents with causal inside each)."""
    S, B, mask = spec["seq_len_q"], spec["batch"], spec["mask"]
    if spec["seq_len_kv"] != S:
        raise ValueError(f'{spec["name"]}: seq_len_kv {spec["seq_len_kv"]} differs from seq_len_q {S}')
    if set(mask) == {"sliding_window"}:
        w = mask["sliding_window"]
        if w["right"] != 0 or w["left"] < 0:
            raise ValueError(f'{spec["name"]}: mask.sliding_window must be causal with a left reach, got {w}')
        return [S] * B, w["left"]
    parts = mask.get("and", [])
    docs = [m["documents"]["lengths"] for m in parts if "documents" in m]
    causal = [m for m in parts if m == {"causal": {"offset": 0}}]
    if len(parts) != 2 or len(docs) != 1 or len(causal) != 1:
        raise ValueError(f'{spec["name"]}: mask must be sliding_window or and(causal, documents), got {mask}')
    if sum(docs[0]) != S:
        raise ValueError(f'{spec["name"]}: mask.and[documents].lengths sum to {sum(docs[0])}, not seq_len_q {S}')
    return list(docs[0]) * B, None


def offsets(lengths):
    """Cumulative sequence offsets, 0 first."""
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return out


def prefix_tokens(cu, window, limit=2048):
    """How many leading tokens the fp32 check covers: whole documents up to `limit`, or `limit` tokens of a window row
    (a prefix depends on nothing after it, so its outputs are exact)."""
    if window is not None:
        return min(limit, cu[-1])
    return max(c for c in cu if c <= limit) or cu[1]
