"""The mask algebra of saw.mask/1 as immutable values, with the token meaning of saw.engine.mask.Mask.

Each primitive knows whether (i, j) attends, evaluated here on NumPy index arrays; `resolve` picks the per-head
variant and the per-batch documents of one (batch, head) pair, as saw's BoundMask does.
"""

from dataclasses import dataclass
from typing import Tuple

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class Full:
    pass


@dataclass(frozen=True)
class Causal:
    offset: int = 0


@dataclass(frozen=True)
class SlidingWindow:
    left: int = -1  # -1: unbounded
    right: int = -1


@dataclass(frozen=True)
class ChunkedCausal:
    chunk: int


@dataclass(frozen=True)
class PrefixLm:
    prefix: int


@dataclass(frozen=True)
class Lengths:
    lengths: Tuple[int, ...]


@dataclass(frozen=True)
class SegmentIds:
    q: Tuple[int, ...]
    kv: Tuple[int, ...]


@dataclass(frozen=True)
class Documents:
    per_batch: Tuple[object, ...]  # Lengths or SegmentIds: one for every batch entry, or one per entry

    def for_batch(self, b):
        return self.per_batch[0] if len(self.per_batch) == 1 else self.per_batch[b]


@dataclass(frozen=True)
class GlobalTokens:
    indices: Tuple[int, ...]  # sorted, distinct

    def first_count(self):
        """n when the tokens are exactly 0..n-1 (n > 0), else -1."""
        n = len(self.indices)
        return n if n > 0 and self.indices[-1] == n - 1 else -1


@dataclass(frozen=True)
class Dilated:
    stride: int


@dataclass(frozen=True)
class Sinks:
    count: int


@dataclass(frozen=True)
class RandomBlocks:
    block_q: int
    block_kv: int
    per_row: int
    seed: int  # as its unsigned 64-bit pattern


@dataclass(frozen=True)
class BlockList:
    block_q: int
    block_kv: int
    rows: Tuple[Tuple[int, ...], ...]  # each sorted, distinct


@dataclass(frozen=True)
class Painted:
    block_q: int
    block_kv: int
    rows: Tuple[Tuple[int, ...], ...]


@dataclass(frozen=True)
class And:
    children: Tuple[object, ...]


@dataclass(frozen=True)
class Or:
    children: Tuple[object, ...]


@dataclass(frozen=True)
class Not:
    child: object


@dataclass(frozen=True)
class PerHead:
    variants: Tuple[object, ...]


# ---- the random_blocks generator (docs/formats.md, saw.engine.mask.RandomBlockDraw) ----


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def random_row(seed, row, per_row, nkv):
    """The sorted kv-blocks q-block `row` attends under random_blocks with this seed (any 64-bit integer)."""
    if per_row >= nkv:
        return list(range(nkv))
    state = _mix((seed & MASK64) ^ _mix(row + 1))
    drawn = set()
    while len(drawn) < per_row:
        state = (state + GOLDEN) & MASK64
        drawn.add(_mix(state) % nkv)
    return sorted(drawn)


def block_rows(mask, seq_q, seq_kv):
    """The listed kv-blocks of every q-block row of a random_blocks, block_list or painted mask."""
    nq = -(-seq_q // mask.block_q)
    nkv = -(-seq_kv // mask.block_kv)
    if isinstance(mask, RandomBlocks):
        return [random_row(mask.seed, r, mask.per_row, nkv) for r in range(nq)]
    return [list(r) for r in mask.rows[:nq]]


def block_table(mask, seq_q, seq_kv):
    """bool [nq, nkv]: whether q-block r attends kv-block c, in the mask's own block size."""
    nq = -(-seq_q // mask.block_q)
    nkv = -(-seq_kv // mask.block_kv)
    table = np.zeros((nq, nkv), dtype=bool)
    for r, kvs in enumerate(block_rows(mask, seq_q, seq_kv)):
        table[r, list(kvs)] = True
    return table


# ---- documents ----


def _ids_of_lengths(lengths, n):
    ids = np.full(n, -1, dtype=np.int32)
    pos = 0
    for d, length in enumerate(lengths):
        if pos >= n:
            break
        ids[pos:min(n, pos + length)] = d
        pos += length
    return ids


def segment_ids(segments, seq_q, seq_kv):
    """(q ids [Sq], kv ids [Skv]) as int32 arrays; -1 is padding."""
    if isinstance(segments, Lengths):
        return _ids_of_lengths(segments.lengths, seq_q), _ids_of_lengths(segments.lengths, seq_kv)
    return np.asarray(segments.q, dtype=np.int32), np.asarray(segments.kv, dtype=np.int32)


# ---- batch and head structure ----


def children(m):
    if isinstance(m, (And, Or)):
        return m.children
    if isinstance(m, Not):
        return (m.child,)
    if isinstance(m, PerHead):
        return m.variants
    return ()


def varies_with_batch(m):
    if isinstance(m, Documents):
        return len(m.per_batch) > 1
    return any(varies_with_batch(c) for c in children(m))


def head_period(m, heads):
    """1 when every head has the same mask; else the period with which heads repeat (at most `heads`)."""
    def period(x):
        p = len(x.variants) if isinstance(x, PerHead) else 1
        for c in children(x):
            p = np.lcm(p, period(c))
        return min(int(p), 1 << 30)
    return min(heads, period(m))


def resolve(m, b, h):
    """The mask batch entry b and head h use: per_head picked, per_batch documents reduced to entry b."""
    if isinstance(m, Documents):
        return m if len(m.per_batch) == 1 else Documents((m.for_batch(b),))
    if isinstance(m, And):
        return And(tuple(resolve(c, b, h) for c in m.children))
    if isinstance(m, Or):
        return Or(tuple(resolve(c, b, h) for c in m.children))
    if isinstance(m, Not):
        return Not(resolve(m.child, b, h))
    if isinstance(m, PerHead):
        return resolve(m.variants[h % len(m.variants)], b, h)
    return m


# ---- token evaluation ----


def attends(m, q, kv, seq_q, seq_kv):
    """Whether q attends kv, broadcast over int64 index arrays q and kv, for a resolved mask (no per_head)."""
    if isinstance(m, Full):
        return np.ones(np.broadcast_shapes(q.shape, kv.shape), dtype=bool)
    if isinstance(m, Causal):
        return kv <= q + m.offset
    if isinstance(m, SlidingWindow):
        ok = np.ones(np.broadcast_shapes(q.shape, kv.shape), dtype=bool)
        if m.left >= 0:
            ok &= kv >= q - m.left
        if m.right >= 0:
            ok &= kv <= q + m.right
        return ok
    if isinstance(m, ChunkedCausal):
        return (q // m.chunk == kv // m.chunk) & (kv <= q)
    if isinstance(m, PrefixLm):
        return (kv < m.prefix) | (kv <= q)
    if isinstance(m, Documents):
        q_ids, kv_ids = segment_ids(m.per_batch[0], seq_q, seq_kv)
        a = q_ids[q]
        return (a != -1) & (a == kv_ids[kv])
    if isinstance(m, GlobalTokens):
        member = np.zeros(max(seq_q, seq_kv), dtype=bool)
        member[list(m.indices)] = True
        return member[q] | member[kv]
    if isinstance(m, Dilated):
        return np.mod(q - kv, m.stride) == 0
    if isinstance(m, Sinks):
        return np.broadcast_to(kv < m.count, np.broadcast_shapes(q.shape, kv.shape))
    if isinstance(m, (RandomBlocks, BlockList, Painted)):
        return block_table(m, seq_q, seq_kv)[q // m.block_q, kv // m.block_kv]
    if isinstance(m, And):
        out = attends(m.children[0], q, kv, seq_q, seq_kv)
        for c in m.children[1:]:
            out = out & attends(c, q, kv, seq_q, seq_kv)
        return out
    if isinstance(m, Or):
        out = attends(m.children[0], q, kv, seq_q, seq_kv)
        for c in m.children[1:]:
            out = out | attends(c, q, kv, seq_q, seq_kv)
        return out
    if isinstance(m, Not):
        return ~attends(m.child, q, kv, seq_q, seq_kv)
    raise TypeError(f"per_head is resolved before evaluation, got {m!r}")
