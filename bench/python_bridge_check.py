#!/usr/bin/env python3
"""sawmask.torch against saw itself, on a CUDA machine (bench/gpu/python-bridge.sh runs it).

  blocks   For every preset and a set of corner cases (ragged lengths, Sq != Skv, padding, per-head, per-batch,
           random blocks on a ragged grid): saw's flex export (`saw compile --format flex`) loaded through
           sawmask.torch.block_mask(layout=...) must have exactly saw's tiles and the q-major arrays saw wrote, and
           sawmask.torch.block_mask() (create_block_mask over sawmask's mask_mod) must agree with it tile by tile
           (a ragged last tile that saw calls FULL may be PARTIAL in create_block_mask, which counts padding as not
           attending). Presets larger than the GPU can evaluate densely run at a shorter --seq, as stated.
  dumps    Writes the corner-case configs for `saw dump` (the shell script dumps them and runs compare_flex.py check).

Prints one line per case; exits 1 if any case failed.
"""

import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import sawmask  # noqa: E402

# create_mask evaluates every (head, q, kv) with int64 intermediates: keep H x Sq x Skv at most 2^30
MAX_DENSE = 1 << 30


def cfg(name, sq, mask, skv=None, batch=1, heads=1, block=(128, 128)):
    return {"schema": "saw.mask/1", "name": name, "seq_len_q": sq, "seq_len_kv": sq if skv is None else skv,
            "batch": batch, "heads": heads, "block": {"q": block[0], "kv": block[1]}, "mask": mask}


def file_name(name):
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def corner_cases():
    ids = [(t // 700) if t < 3900 else -1 for t in range(4096)]
    kv_ids = [(t // 500) % 6 if t < 4800 else -1 for t in range(5000)]
    q_ids = [(t // 450) % 6 for t in range(3000)]
    return [
        cfg("ragged docs", 4277, {"and": [{"causal": {}}, {"documents": {"lengths": [1000, 2500, 777]}}]}, block=(128, 64)),
        cfg("Sq != Skv causal bottom-right", 3000, {"causal": {"offset": 2000}}, skv=5000, block=(64, 128)),
        cfg("Sq != Skv window", 5000, {"sliding_window": {"left": 300, "right": 50}}, skv=3100),
        cfg("padding segment ids", 4096, {"and": [{"causal": {}}, {"documents": {"segment_ids": ids}}]}),
        cfg("padding q/kv ids", 3000, {"documents": {"q_segment_ids": q_ids, "kv_segment_ids": kv_ids}}, skv=5000),
        cfg("per head", 4096, {"per_head": [{"causal": {}}, {"sliding_window": {"left": 256, "right": 0}},
                                            {"and": [{"causal": {}}, {"or": [{"sinks": {"count": 4}},
                                                                             {"sliding_window": {"left": 512}}]}]}]},
            heads=6, block=(64, 64)),
        cfg("per batch documents", 4096, {"and": [{"causal": {}}, {"documents": {"per_batch": [
            {"lengths": [1000, 3096]}, {"lengths": [4000]}, {"segment_ids": [t // 1024 for t in range(4096)]}]}}]}, batch=3),
        cfg("random blocks ragged", 3000, {"random_blocks": {"block": [64, 64], "per_row": 5, "seed": -3}}),
        cfg("global + dilated + not", 2500, {"or": [{"global_tokens": {"indices": [0, 7, 1999]}},
                                                    {"and": [{"dilated": {"stride": 3}}, {"not": {"causal": {"offset": -64}}}]}]},
            block=(128, 64)),
        cfg("prefix lm ragged", 3333, {"prefix_lm": {"prefix": 1000}}),
        cfg("painted", 2048, {"painted": {"block": [256, 256], "cells": ["0", "0-1", "", "3,5-6", "7"]}}, block=(64, 128)),
    ]


def presets(root):
    out = []
    folder = os.path.join(root, "presets")
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json"):
            with open(os.path.join(folder, f), encoding="utf-8") as fh:
                out.append(json.load(fh))
    return out


def shrink(c):
    """The config at a --seq the dense create_block_mask can take, or itself; (config, note)."""
    loaded = sawmask.load(c)
    heads = loaded.heads if loaded.head_period > 1 else 1
    seq = max(loaded.seq_len_q, loaded.seq_len_kv)
    while heads * seq * seq > MAX_DENSE and seq > 1024:
        seq //= 2
    if seq == max(loaded.seq_len_q, loaded.seq_len_kv):
        return c, ""
    small = dict(c, seq_len_q=seq, seq_len_kv=seq)
    try:
        sawmask.load(small)
    except sawmask.ConfigError as e:
        return None, f"too large to evaluate densely here and does not fit --seq {seq} ({e})"
    return small, f" (at --seq {seq})"


def check_blocks(saw, work, cases, device):
    import sawmask.torch as st
    failures = 0
    for c in cases:
        name = c["name"]
        c, note = shrink(c)
        if c is None:
            print(f"SKIP  {name}: {note}")
            continue
        path = os.path.join(work, file_name(name) + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(c, f)
        flex_path = path.replace(".json", ".flex.json")
        r = subprocess.run([saw, "compile", path, "--format", "flex", "-o", flex_path], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL  {name}{note}: saw compile: {r.stderr.strip()}")
            failures += 1
            continue
        try:
            export = sawmask.load_export(flex_path)
            loaded = sawmask.load(c)
            mod = st.mask_mod(loaded, device=device)
            from_saw = st.block_mask(loaded, layout=export, device=device, mod=mod)
            created = st.block_mask(loaded, device=device, mod=mod)
            problems = []
            b, h = export["kv_num_blocks"].shape[:2]
            saw_tiles = np.zeros(export["kv_indices"].shape, dtype=np.int8)
            for kind, value in (("", 1), ("full_", 2)):
                num, idx = export[kind + "kv_num_blocks"], export[kind + "kv_indices"]
                bb, hh, rr, cc = np.nonzero(np.arange(idx.shape[-1]) < num[..., None])
                saw_tiles[bb, hh, rr, idx[bb, hh, rr, cc]] = value
            if not np.array_equal(st.tile_classes(from_saw), saw_tiles):
                problems.append("from_kv_blocks changed saw's tiles")
            for k in ("q_num_blocks", "full_q_num_blocks"):
                if not np.array_equal(getattr(from_saw, k).cpu().numpy(), export[k]):
                    problems.append(f"{k} differs from saw's")
            verdict = st.compare_tiles(st.tile_classes(created), saw_tiles, loaded)
            if verdict != "ok":
                problems.append("create_block_mask: " + verdict)
            counts = np.bincount(saw_tiles.ravel(), minlength=3)
            status = "ok" if not problems else "FAIL"
            failures += bool(problems)
            print(f"{status:<5} {name}{note}: B={b} H={h} {loaded.seq_len_q}x{loaded.seq_len_kv} block "
                  f"{loaded.block_q}x{loaded.block_kv}, tiles E/P/F {counts[0]}/{counts[1]}/{counts[2]}"
                  + ("" if not problems else " -- " + "; ".join(problems)))
        except Exception as e:  # one case failing never hides the others
            failures += 1
            print(f"FAIL  {name}{note}: {type(e).__name__}: {' '.join(str(e).split())[:300]}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["blocks", "dumps"])
    ap.add_argument("--saw", required=True, help="the saw launcher")
    ap.add_argument("--work", required=True, help="folder for configs and exports")
    ap.add_argument("--device", default="cuda", help="cuda (default), or cpu to try the script itself")
    ap.add_argument("--root", default=os.path.join(HERE, ".."), help="the repository (for presets/)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.command == "dumps":
        for c in corner_cases():
            with open(os.path.join(args.work, file_name(c["name"]) + ".json"), "w", encoding="utf-8") as f:
                json.dump(c, f)
        return
    cases = presets(args.root) + corner_cases()
    if os.environ.get("CASES"):
        cases = [c for c in cases if re.search(os.environ["CASES"], c["name"])]
    failures = check_blocks(args.saw, args.work, cases, args.device)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
