#!/usr/bin/env python3
"""Checks saw's `flex` export of a mask against PyTorch FlexAttention and the `dense` export of the same mask.

    saw compile SPEC --block 128x128 --format flex  -o mask.flex.json
    saw compile SPEC --block 128x128 --format dense -o mask.dense.json
    python3 bench/check_flex_export.py mask.flex.json mask.dense.json [--attention]

1. Builds the BlockMask with BlockMask.from_kv_blocks and checks that the q-major arrays it derives hold the same
   tiles as the exported q_* arrays.
2. Checks tile by tile that the BlockMask's PARTIAL tiles (kv_*) and FULL tiles (full_kv_*) are exactly those of
   the dense token mask. BlockMask.to_dense() is block-level, so the token mask is reduced to tile classes here;
   ragged last tiles count only real tokens, as saw defines them.
3. With --attention (CUDA), runs the compiled flex_attention with that BlockMask and a mask_mod that looks up the
   dense mask, and compares it with a float64 reference (rows that attend nothing give 0).
Prints what differs and exits 1 on any mismatch, 0 when everything agrees.
"""
import argparse
import json
import sys

import numpy as np
import torch
from torch.nn.attention.flex_attention import BlockMask, flex_attention

EMPTY, PARTIAL, FULL = 0, 1, 2


def load_dense(path):
    rows = json.load(open(path))["mask"]
    b, h, sq, skv = len(rows), len(rows[0]), len(rows[0][0]), len(rows[0][0][0])
    text = "".join(row for per_batch in rows for per_head in per_batch for row in per_head)
    return torch.from_numpy((np.frombuffer(text.encode("ascii"), dtype=np.uint8) == ord("1")).reshape(b, h, sq, skv))


def tile_classes(dense, bq, bkv):
    b, h, sq, skv = dense.shape
    nq, nkv = -(-sq // bq), -(-skv // bkv)
    padded = torch.zeros(b, h, nq * bq, nkv * bkv, dtype=torch.int64)
    padded[:, :, :sq, :skv] = dense
    real = torch.zeros(nq * bq, nkv * bkv, dtype=torch.int64)
    real[:sq, :skv] = 1
    attending = padded.view(b, h, nq, bq, nkv, bkv).sum((3, 5))
    size = real.view(nq, bq, nkv, bkv).sum((1, 3))
    return torch.where(attending == 0, EMPTY, torch.where(attending == size, FULL, PARTIAL))


def listed(num, indices):
    """The 0/1 block matrix that (num_blocks, indices) lists: entry k of a row counts when k < num_blocks."""
    keep = torch.arange(indices.shape[-1]) < num.unsqueeze(-1).long()
    out = torch.zeros(*indices.shape[:-1], indices.shape[-1] + 1, dtype=torch.int32)
    out.scatter_(-1, torch.where(keep, indices.long(), indices.shape[-1]), 1)
    return out[..., :-1]


def compare(name, got, want, problems):
    shape = torch.broadcast_shapes(got.shape, want.shape)
    bad = (got.expand(shape) != want.expand(shape)).nonzero()
    if got.shape[:2] != want.shape[:2]:
        problems.append(f"{name}: batch/head shape {tuple(got.shape[:2])} but expected {tuple(want.shape[:2])}")
    if len(bad):
        problems.append(f"{name}: {len(bad)} tiles differ, first at [b, h, row, col] = {bad[0].tolist()}")


def check_attention(block_mask, dense, header, problems):
    dev = "cuda"
    torch.backends.cuda.matmul.allow_tf32 = False
    b, h, sq, skv = header["batch"], header["heads"], header["seq_len_q"], header["seq_len_kv"]
    bq, bkv = block_mask.BLOCK_SIZE
    gen = torch.Generator(device=dev).manual_seed(0)
    q, k, v = (torch.randn(b, h, n, 64, device=dev, generator=gen) for n in (sq, skv, skv))
    lookup = dense.to(dev)
    db, dh = lookup.shape[:2]

    def mask_mod(bi, hi, qi, ki):
        return lookup[bi % db, hi % dh, qi, ki]

    bm = block_mask.to(dev)
    bm.mask_mod = mask_mod
    options = {"BLOCK_M": min(bq, 64), "BLOCK_N": min(bkv, 64)}
    out = torch.compile(flex_attention)(q, k, v, block_mask=bm, kernel_options=options)
    full = lookup.expand(b, h, sq, skv)
    scores = (q.double() @ k.double().transpose(-1, -2)) / 8.0
    p = torch.softmax(scores.masked_fill(~full, float("-inf")), dim=-1).nan_to_num(0.0)
    err = (out.double() - p @ v.double()).abs().max().item()
    print(f"flex_attention vs float64 reference: max abs error {err:.2e}")
    if not err < 2e-3:
        problems.append(f"flex_attention output differs from the reference by {err:.2e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("flex_json")
    parser.add_argument("dense_json")
    parser.add_argument("--attention", action="store_true", help="also run flex_attention on CUDA")
    args = parser.parse_args()
    flex = json.load(open(args.flex_json))
    t = {k: torch.tensor(v, dtype=torch.int32) for k, v in flex.items() if k.endswith(("_num_blocks", "_indices"))}
    size, lengths = tuple(flex["block_size"]), tuple(flex["seq_lengths"])
    block_mask = BlockMask.from_kv_blocks(t["kv_num_blocks"], t["kv_indices"], t["full_kv_num_blocks"], t["full_kv_indices"],
                                          BLOCK_SIZE=size, seq_lengths=lengths)
    dense = load_dense(args.dense_json)
    classes = tile_classes(dense, *size)
    problems = []
    for stem in ("q", "full_q"):
        derived = listed(getattr(block_mask, stem + "_num_blocks").cpu(), getattr(block_mask, stem + "_indices").cpu())
        compare(f"derived {stem}_* vs exported", derived, listed(t[stem + "_num_blocks"], t[stem + "_indices"]), problems)
    for stem, cls in (("kv", PARTIAL), ("full_kv", FULL)):
        only = BlockMask.from_kv_blocks(t[stem + "_num_blocks"], t[stem + "_indices"], BLOCK_SIZE=size, seq_lengths=lengths)
        compare(f"{stem}_* vs dense tiles", only.to_dense().cpu().int(), (classes == cls).int(), problems)
    print(f"{tuple(t['kv_num_blocks'].shape[:2])} (B, H), {classes.shape[-2]}x{classes.shape[-1]} tiles of {size}: "
          f"{int((classes == PARTIAL).sum())} partial, {int((classes == FULL).sum())} full in the dense mask")
    if args.attention:
        check_attention(block_mask, dense, flex["saw"], problems)
    for p in problems:
        print("MISMATCH", p)
    print("OK" if not problems else f"{len(problems)} mismatches")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
