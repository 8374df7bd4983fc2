"""saw masks for PyTorch FlexAttention: closed-form mask_mods and BlockMasks (imports torch when first used).

    from torch.nn.attention.flex_attention import flex_attention
    import sawmask.torch as st
    bm = st.block_mask("mask.json", device="cuda")           # create_block_mask over st.mask_mod(...)
    bm = st.block_mask("mask.json", layout="mask.flex.json")  # saw's compiled tiles through from_kv_blocks
    out = torch.compile(flex_attention)(q, k, v, block_mask=bm)

`mask_mod(config)` is written as a FlexAttention user would write it: one small function per primitive
(`q_idx >= kv_idx`, `(q_idx - kv_idx <= 1024)`, a document-id lookup only for documents, a block table only for
block-level masks), combined with `and_masks` / `or_masks`, a negation and, for per_head, `torch.where` on the
head. The program it runs is its `source` attribute, so anyone can read and rerun exactly what ran.
"""

import json
import os

import numpy as np

from . import masks as M
from .config import load, load_export

# lookup tables are padded past the sequence so that the kernels' padded tails (up to a tile of 1024) read -1/False
_TABLE_PAD = 1024


def _torch():
    try:
        import torch
        from torch.nn.attention import flex_attention
    except ImportError as e:
        raise ImportError("sawmask.torch needs PyTorch 2.5 or newer with FlexAttention "
                          f"(torch.nn.attention.flex_attention); importing it failed: {e}") from None
    return torch, flex_attention


def _padded(n):
    return -(-n // _TABLE_PAD) * _TABLE_PAD + _TABLE_PAD


class _Program:
    """Builds the source of one mask_mod, primitive by primitive, and the tensors it reads."""

    def __init__(self, cfg, device):
        self.cfg, self.device = cfg, device
        self.lines, self.tensors, self.notes = [], {}, []
        self.count = 0

    def name(self, kind):
        self.count += 1
        return f"{kind}_{self.count}"

    def leaf(self, kind, expr):
        n = self.name(kind)
        self.lines += [f"def {n}(b, h, q_idx, kv_idx):", f"    return {expr}", ""]
        return n

    def tensor(self, name, array, note):
        torch, _ = _torch()
        key = f"{name}{len(self.tensors) + 1}"
        self.tensors[key] = torch.as_tensor(np.ascontiguousarray(array)).to(self.device)
        self.notes.append(f"# {key}: {str(array.dtype)}{list(array.shape)}, {note}")
        return key

    def build(self, m):
        sq, skv = self.cfg.seq_len_q, self.cfg.seq_len_kv
        if isinstance(m, M.Full):
            return self.leaf("full", "kv_idx >= 0")
        if isinstance(m, M.Causal):
            return self.leaf("causal", "q_idx >= kv_idx" if m.offset == 0 else f"kv_idx <= q_idx + {m.offset}")
        if isinstance(m, M.SlidingWindow):
            terms = []
            if m.left >= 0:
                terms.append(f"(q_idx - kv_idx <= {m.left})")
            if m.right >= 0:
                terms.append("(kv_idx <= q_idx)" if m.right == 0 else f"(kv_idx - q_idx <= {m.right})")
            return self.leaf("window", " & ".join(terms) if terms else "kv_idx >= 0")
        if isinstance(m, M.ChunkedCausal):
            return self.leaf("chunked", f"(q_idx // {m.chunk} == kv_idx // {m.chunk}) & (kv_idx <= q_idx)")
        if isinstance(m, M.PrefixLm):
            return self.leaf("prefix_lm", f"(kv_idx < {m.prefix}) | (kv_idx <= q_idx)")
        if isinstance(m, M.Sinks):
            return self.leaf("sinks", f"kv_idx < {m.count}")
        if isinstance(m, M.Dilated):
            return self.leaf("dilated", f"(q_idx - kv_idx) % {m.stride} == 0")
        if isinstance(m, M.GlobalTokens):
            n = m.first_count()
            if n > 0 or not m.indices:
                return self.leaf("global", f"(q_idx < {max(n, 0)}) | (kv_idx < {max(n, 0)})")
            member = np.zeros(_padded(max(sq, skv)), dtype=bool)
            member[list(m.indices)] = True
            t = self.tensor("is_global", member, f"whether each token is one of the {len(m.indices)} global tokens")
            return self.leaf("global", f"{t}[q_idx] | {t}[kv_idx]")
        if isinstance(m, M.Documents):
            return self.documents(m)
        if isinstance(m, (M.RandomBlocks, M.BlockList, M.Painted)):
            table = M.block_table(m, sq, skv)
            padded = np.zeros((_padded(sq) // m.block_q + 1, _padded(skv) // m.block_kv + 1), dtype=bool)
            padded[:table.shape[0], :table.shape[1]] = table
            t = self.tensor("block_table", padded, f"whether q-block r attends kv-block c (blocks of {m.block_q} x {m.block_kv})")
            return self.leaf("blocks", f"{t}[q_idx // {m.block_q}, kv_idx // {m.block_kv}]")
        if isinstance(m, (M.And, M.Or)):
            parts = [self.build(c) for c in m.children]
            if len(parts) == 1:
                return parts[0]
            n = self.name("and" if isinstance(m, M.And) else "or")
            self.lines += [f"{n} = {'and_masks' if isinstance(m, M.And) else 'or_masks'}({', '.join(parts)})", ""]
            return n
        if isinstance(m, M.Not):
            inner = self.build(m.child)
            return self.leaf("not", f"~{inner}(b, h, q_idx, kv_idx)")
        if isinstance(m, M.PerHead):
            parts = [self.build(v) for v in m.variants]
            k = len(parts)
            expr = f"{parts[-1]}(b, h, q_idx, kv_idx)"
            for i in range(k - 2, -1, -1):
                expr = f"torch.where(h % {k} == {i}, {parts[i]}(b, h, q_idx, kv_idx), {expr})"
            return self.leaf("per_head", expr)
        raise TypeError(f"not a saw mask: {m!r}")

    def documents(self, m):
        sq, skv = self.cfg.seq_len_q, self.cfg.seq_len_kv
        entries = m.per_batch
        longest = _padded(max(sq, skv))
        shared = all(isinstance(e, M.Lengths) or e.q == e.kv for e in entries)

        def ids(values):
            out = np.full(longest, -1, dtype=np.int32)
            out[:len(values)] = values
            return out
        q_tables, kv_tables = [], []
        for e in entries:
            if isinstance(e, M.Lengths):
                q_ids, kv_ids = M.segment_ids(e, max(sq, skv), max(sq, skv))
            else:
                q_ids, kv_ids = M.segment_ids(e, sq, skv)
            q_tables.append(ids(q_ids))
            kv_tables.append(ids(kv_ids))
        q_padding = any((t[:sq] < 0).any() for t in q_tables)
        per_batch = len(entries) > 1
        at = (lambda t, i: f"{t}[b, {i}]") if per_batch else (lambda t, i: f"{t}[{i}]")
        what = "document id of each token (-1 = padding)" + (", one row per batch entry" if per_batch else "")
        stack = (lambda ts: np.stack(ts)) if per_batch else (lambda ts: ts[0])
        if shared:
            q_name = kv_name = self.tensor("doc", stack(q_tables), what)
        else:
            q_name = self.tensor("q_doc", stack(q_tables), "query " + what)
            kv_name = self.tensor("kv_doc", stack(kv_tables), "key " + what)
        expr = f"{at(q_name, 'q_idx')} == {at(kv_name, 'kv_idx')}"
        if q_padding:
            expr = f"({expr}) & ({at(q_name, 'q_idx')} >= 0)"
        return self.leaf("documents", expr)


def mask_mod(config, device="cuda"):
    """A FlexAttention mask_mod(b, h, q_idx, kv_idx) with saw's token meaning; `.source` holds its program text and
    `.tensors` the tensors it reads (document ids, block tables), created on `device`."""
    torch, fa = _torch()
    cfg = load(config)
    prog = _Program(cfg, device)
    top = prog.build(cfg.mask)
    header = [f"# FlexAttention mask_mod made by sawmask from saw.mask/1 config \"{cfg.name}\" "
              f"(Sq={cfg.seq_len_q}, Skv={cfg.seq_len_kv})",
              "import torch",
              "from torch.nn.attention.flex_attention import and_masks, or_masks"] + prog.notes + [""]
    source = "\n".join(header + prog.lines + [f"mask_mod = {top}", ""])
    namespace = {"torch": torch, "and_masks": fa.and_masks, "or_masks": fa.or_masks, **prog.tensors}
    exec(compile(source, f"<sawmask mask_mod {cfg.name}>", "exec"), namespace)
    fn = namespace["mask_mod"]
    try:
        fn.source = source
    except AttributeError:  # and_masks may return a builtin-like callable in some torch versions
        fn = _with_source(fn, source)
    fn.tensors = prog.tensors  # name -> the tensor the source reads under that name
    return fn


def _with_source(inner, source):
    def mask_mod(b, h, q_idx, kv_idx):
        return inner(b, h, q_idx, kv_idx)
    mask_mod.source = source
    return mask_mod


def extents(config):
    """(B, H) of the BlockMask: 1 where the mask is the same for every batch entry or head, as saw's exports."""
    cfg = load(config)
    return (cfg.batch if cfg.batch_period > 1 else 1), (cfg.heads if cfg.head_period > 1 else 1)


def block_mask(config, layout=None, device="cuda", mod=None, compile=False):
    """A BlockMask for a saw mask config.

    layout=None builds it with create_block_mask over `mod` (default: mask_mod(config)); layout = a `saw compile
    --format flex` output (path or dict) loads saw's compiled tiles through BlockMask.from_kv_blocks, exactly, with
    no token evaluation. Both use block sizes from the config (or from the layout)."""
    torch, fa = _torch()
    cfg = load(config)
    mod = mod or mask_mod(cfg, device)
    if layout is None:
        b, h = extents(cfg)
        return fa.create_block_mask(mod, b, h, cfg.seq_len_q, cfg.seq_len_kv, device=device,
                                    BLOCK_SIZE=(cfg.block_q, cfg.block_kv), _compile=compile)
    flex = layout if isinstance(layout, dict) else load_export(layout)
    if flex["saw"]["format"] != "saw.flex/1":
        raise ValueError(f"layout is a {flex['saw']['format']} export; block_mask needs saw compile --format flex")
    if list(flex["seq_lengths"]) != [cfg.seq_len_q, cfg.seq_len_kv]:
        raise ValueError(f"layout is for {flex['seq_lengths']} tokens but the config has "
                         f"[{cfg.seq_len_q}, {cfg.seq_len_kv}]")
    t = {k: torch.as_tensor(np.asarray(flex[k], dtype=np.int32), device=device)
         for k in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices")}
    return fa.BlockMask.from_kv_blocks(t["kv_num_blocks"], t["kv_indices"], t["full_kv_num_blocks"],
                                       t["full_kv_indices"], BLOCK_SIZE=tuple(flex["block_size"]), mask_mod=mod,
                                       seq_lengths=tuple(flex["seq_lengths"]))


def tile_classes(bm):
    """int8 [B, H, nq, nkv] NumPy array of a BlockMask's tiles: 0 EMPTY, 1 PARTIAL (mask_mod runs), 2 FULL."""
    def listed(num, idx):
        num, idx = num.cpu().numpy(), idx.cpu().numpy()
        out = np.zeros(idx.shape[:3] + (idx.shape[3],), dtype=bool)
        cols = np.arange(idx.shape[3])
        take = cols[None, None, None, :] < num[..., None]
        b, h, r, c = np.nonzero(take)
        out[b, h, r, idx[b, h, r, c]] = True
        return out
    partial = listed(bm.kv_num_blocks, bm.kv_indices)
    classes = partial.astype(np.int8)
    if bm.full_kv_num_blocks is not None:
        classes[listed(bm.full_kv_num_blocks, bm.full_kv_indices)] = 2
    return classes


def compare_tiles(ours, theirs, config):
    """'ok', or what differs between two tile-class arrays of one config. A ragged last tile that saw calls FULL
    (all its real pairs attend) may be PARTIAL in create_block_mask, which counts the padding as not attending;
    both run correctly, so that difference alone is allowed."""
    cfg = load(config)
    nq, nkv = -(-cfg.seq_len_q // cfg.block_q), -(-cfg.seq_len_kv // cfg.block_kv)
    ours, theirs = ours[..., :nq, :nkv], theirs[..., :nq, :nkv]
    shape = np.broadcast_shapes(ours.shape, theirs.shape)
    ours, theirs = np.broadcast_to(ours, shape), np.broadcast_to(theirs, shape)
    ragged = np.zeros(shape[-2:], dtype=bool)
    if cfg.seq_len_q % cfg.block_q:
        ragged[-1, :] = True
    if cfg.seq_len_kv % cfg.block_kv:
        ragged[:, -1] = True
    differ = ours != theirs
    allowed = ragged & (np.minimum(ours, theirs) == 1) & (np.maximum(ours, theirs) == 2)
    bad = differ & ~allowed
    if not bad.any():
        return "ok"
    b, h, r, c = np.argwhere(bad)[0]
    return f"{int(bad.sum())} tiles differ, first (b={b}, h={h}, q-block {r}, kv-block {c}): {ours[b, h, r, c]} vs {theirs[b, h, r, c]}"
