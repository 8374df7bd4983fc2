"""Dense token evaluation with NumPy, for small sizes: the oracle of sawmask's own tests and of the adapters.

Arrays have a batch axis of size 1 when the mask is the same for every batch entry and a head axis of size 1 when
it is the same for every head (else the full batch or head count), as saw's exports do; NumPy broadcasting
(`np.broadcast_to(a, (B, H, ...))`) expands them.
"""

import numpy as np

from . import masks as M
from .config import load

EMPTY, PARTIAL, FULL = 0, 1, 2
MAX_DENSE_PAIRS = 1 << 28


def _extents(cfg):
    b = cfg.batch if cfg.batch_period > 1 else 1
    h = cfg.heads if cfg.head_period > 1 else 1
    return b, h


def dense(config):
    """bool [B|1, H|1, Sq, Skv]: whether query i attends key j, for each batch entry and head."""
    cfg = load(config)
    sq, skv = cfg.seq_len_q, cfg.seq_len_kv
    b_n, h_n = _extents(cfg)
    if b_n * h_n * sq * skv > MAX_DENSE_PAIRS:
        raise ValueError(f"dense evaluation of {b_n} x {h_n} x {sq} x {skv} pairs is too large for NumPy here; "
                         "use sawmask.torch (create_block_mask) or saw's exports")
    q = np.arange(sq, dtype=np.int64)[:, None]
    kv = np.arange(skv, dtype=np.int64)[None, :]
    out = np.empty((b_n, h_n, sq, skv), dtype=bool)
    cache = {}
    for b in range(b_n):
        for h in range(h_n):
            m = cfg.resolved(b, h)
            if m not in cache:
                cache[m] = np.broadcast_to(M.attends(m, q, kv, sq, skv), (sq, skv))
            out[b, h] = cache[m]
    return out


def tile_classes(config, block_q=None, block_kv=None):
    """int8 [B|1, H|1, nq, nkv]: EMPTY (0), PARTIAL (1) or FULL (2) per tile; ragged tiles count real tokens only."""
    cfg = load(config)
    bq = block_q or cfg.block_q
    bkv = block_kv or cfg.block_kv
    d = dense(cfg)
    sq, skv = cfg.seq_len_q, cfg.seq_len_kv
    nq, nkv = -(-sq // bq), -(-skv // bkv)
    padded = np.zeros(d.shape[:2] + (nq * bq, nkv * bkv), dtype=np.int32)
    padded[:, :, :sq, :skv] = d
    counts = padded.reshape(d.shape[:2] + (nq, bq, nkv, bkv)).sum(axis=(3, 5))
    rows = np.minimum(bq, sq - np.arange(nq) * bq)
    cols = np.minimum(bkv, skv - np.arange(nkv) * bkv)
    real = rows[:, None] * cols[None, :]
    return np.where(counts == 0, EMPTY, np.where(counts == real, FULL, PARTIAL)).astype(np.int8)


def _ordered(classes, wanted):
    """(num [.., n], indices [.., n, m]): per row the listed blocks ascending, then the others ascending."""
    hit = classes == wanted
    order = np.argsort(~hit, axis=-1, kind="stable").astype(np.int32)
    return hit.sum(axis=-1).astype(np.int32), order


def flex_arrays(tiles):
    """saw's `flex` export arrays (docs/formats.md) from tile classes [B, H, nq, nkv]."""
    kv_num, kv_idx = _ordered(tiles, PARTIAL)
    full_kv_num, full_kv_idx = _ordered(tiles, FULL)
    t = np.swapaxes(tiles, -1, -2)
    q_num, q_idx = _ordered(t, PARTIAL)
    full_q_num, full_q_idx = _ordered(t, FULL)
    return {"kv_num_blocks": kv_num, "kv_indices": kv_idx, "full_kv_num_blocks": full_kv_num,
            "full_kv_indices": full_kv_idx, "q_num_blocks": q_num, "q_indices": q_idx,
            "full_q_num_blocks": full_q_num, "full_q_indices": full_q_idx}


def _bounds(lines):
    """ejKernel bounds of lines [n_lines, n]: (lower, upper, lower_full, upper_full), each int32 [n_lines]."""
    n_lines, n = lines.shape
    out = np.zeros((4, n_lines), dtype=np.int32)
    for x in range(n_lines):
        nonempty = np.flatnonzero(lines[x] != EMPTY)
        if nonempty.size == 0:
            continue
        lo, hi = nonempty[0], nonempty[-1] + 1
        best_start, best_len, run = lo, 0, 0
        for c in range(n):
            run = run + 1 if lines[x, c] == FULL else 0
            if run > best_len:
                best_len, best_start = run, c - run + 1
        out[:, x] = (lo, hi, best_start, best_start + best_len) if best_len else (lo, hi, lo, lo)
    return out


def ejkernel_bounds(tiles, batch, heads):
    """saw's `ejkernel` export arrays from tile classes [B|1, H|1, nq, nkv] of `batch` x `heads` (docs/formats.md).
    The tile counts are summed over every batch entry and head."""
    tiles = np.broadcast_to(tiles, (batch, heads) + tiles.shape[2:])
    empty_all = (tiles == EMPTY).all(axis=1)
    full_all = (tiles == FULL).all(axis=1)
    merged = np.where(empty_all, EMPTY, np.where(full_all, FULL, PARTIAL)).astype(np.int8)  # [batch, nq, nkv]
    names = ("lower_bounds", "upper_bounds", "lower_full_bounds", "upper_full_bounds")
    out = {}
    for prefix, lines_of in (("", lambda b: merged[b]), ("dkdv_", lambda b: merged[b].T)):
        per_b = np.stack([_bounds(lines_of(b)) for b in range(batch)], axis=1)  # [4, batch, n]
        for i, name in enumerate(names):
            out[prefix + name] = per_b[i][:, None, :]
    extra = masked = dk_extra = dk_masked = 0
    for b in range(batch):
        for h in range(tiles.shape[1]):
            for prefix, lines in (("", tiles[b, h]), ("dkdv_", tiles[b, h].T)):
                lo, hi = out[prefix + "lower_bounds"][b, 0], out[prefix + "upper_bounds"][b, 0]
                flo, fhi = out[prefix + "lower_full_bounds"][b, 0], out[prefix + "upper_full_bounds"][b, 0]
                cols = np.arange(lines.shape[1])[None, :]
                inside = (cols >= lo[:, None]) & (cols < hi[:, None])
                in_full = (cols >= flo[:, None]) & (cols < fhi[:, None])
                e = int(((lines == EMPTY) & inside).sum())
                f = int(((lines == FULL) & ~in_full).sum())
                if prefix:
                    dk_extra, dk_masked = dk_extra + e, dk_masked + f
                else:
                    extra, masked = extra + e, masked + f
    out.update(extra_tiles=extra, dkdv_extra_tiles=dk_extra, masked_full_tiles=masked,
               dkdv_masked_full_tiles=dk_masked, exact=extra == masked == dk_extra == dk_masked == 0)
    return out
