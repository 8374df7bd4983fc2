"""Configs for the tests: one per primitive and corner case, and seeded random nested ones."""

import random


def config(mask, sq=100, skv=None, batch=1, heads=1, block=(32, 16), name="test"):
    return {"schema": "saw.mask/1", "name": name, "seq_len_q": sq, "seq_len_kv": sq if skv is None else skv,
            "batch": batch, "heads": heads, "block": {"q": block[0], "kv": block[1]}, "mask": mask}


PRIMITIVES = {
    "full": config({"full": {}}),
    "causal": config({"causal": {}}),
    "causal offset, Sq < Skv": config({"causal": {"offset": 37}}, sq=70, skv=107),
    "causal negative offset": config({"causal": {"offset": -5}}, sq=90, skv=60),
    "sliding window": config({"sliding_window": {"left": 20, "right": 0}}),
    "sliding window both sides": config({"sliding_window": {"left": 7, "right": 12}}, sq=80, skv=130),
    "sliding window right only": config({"sliding_window": {"right": 3}}),
    "chunked causal": config({"chunked_causal": {"chunk": 24}}, sq=101, skv=101),
    "prefix lm": config({"prefix_lm": {"prefix": 33}}),
    "documents lengths with padding": config({"documents": {"lengths": [10, 0, 40, 30]}}),
    "documents lengths, Sq != Skv": config({"documents": {"lengths": [50, 25, 40]}}, sq=60, skv=115),
    "documents segment ids": config({"documents": {"segment_ids": [i // 7 % 3 if i < 90 else -1 for i in range(100)]}}),
    "documents q/kv ids": config({"documents": {"q_segment_ids": [i % 4 for i in range(50)],
                                                "kv_segment_ids": [(i // 9) % 5 - 1 for i in range(75)]}}, sq=50, skv=75),
    "documents per batch": config({"documents": {"per_batch": [{"lengths": [30, 70]}, {"segment_ids": [i // 33 for i in range(100)]},
                                                               {"lengths": [99]}]}}, batch=3),
    "global tokens indices": config({"global_tokens": {"indices": [77, 3, 3, 40]}}, sq=60, skv=90),
    "global tokens count": config({"global_tokens": {"count": 5}}),
    "dilated": config({"dilated": {"stride": 3}}, sq=50, skv=70),
    "sinks": config({"sinks": {"count": 4}}),
    "random blocks": config({"random_blocks": {"block": [16, 32], "per_row": 2, "seed": 7}}, sq=100, skv=200),
    "random blocks negative seed": config({"random_blocks": {"block": [32, 16], "per_row": 3, "seed": -7}}),
    "random blocks seed above 2^63": config({"random_blocks": {"block": [32, 16], "per_row": 4, "seed": 2**64 - 3}}),
    "random blocks all": config({"random_blocks": {"block": [16, 16], "per_row": 7, "seed": 1}}),
    "block list": config({"block_list": {"block": [16, 16], "rows": [[0, 3], [], [6, 1, 1]]}}),
    "painted": config({"painted": {"block": [32, 16], "cells": ["0-2,5", "", "6,4-4,1"]}}),
    "and": config({"and": [{"causal": {}}, {"sliding_window": {"left": 9}}]}),
    "or": config({"or": [{"sinks": {"count": 3}}, {"sliding_window": {"left": 4, "right": 0}}]}),
    "not": config({"not": {"causal": {"offset": 2}}}),
    "per head": config({"per_head": [{"causal": {}}, {"sinks": {"count": 5}}, {"full": {}}]}, heads=5),
    "per head nested": config({"and": [{"per_head": [{"causal": {}}, {"full": {}}]},
                                       {"per_head": [{"sinks": {"count": 40}}, {"dilated": {"stride": 2}}, {"full": {}}]}]}, heads=6),
    "ragged tiles": config({"and": [{"causal": {}}, {"documents": {"lengths": [17, 45, 11]}}]}, sq=73, skv=73, block=(64, 32)),
    "one token": config({"causal": {}}, sq=1, skv=1, block=(16, 16)),
}

BAD = [
    ({"schema": "saw.mask/2", "name": "x", "seq_len_q": 1}, "/schema"),
    (config({"causall": {}}), "/mask/causall"),
    (config({"causal": {"ofset": 1}}), "/mask/causal/ofset"),
    (config({"causal": {}, "full": {}}), "/mask/full"),
    (config({"documents": {"lengths": [60, 60]}}), "/mask/documents/lengths"),
    (config({"documents": {"lengths": [10, -6]}}), "/mask/documents/lengths/1"),
    (config({"documents": {"segment_ids": [0, 1]}}), "/mask/documents/segment_ids"),
    (config({"documents": {"per_batch": [{"lengths": [3]}, {"lengths": [4]}, {"lengths": [5]}]}}, batch=2),
     "/mask/documents/per_batch"),
    (config({"prefix_lm": {"prefix": 101}}), "/mask/prefix_lm/prefix"),
    (config({"sinks": {"count": 101}}), "/mask/sinks/count"),
    (config({"dilated": {"stride": 101}}), "/mask/dilated/stride"),
    (config({"global_tokens": {"indices": [100]}}), "/mask/global_tokens"),
    (config({"random_blocks": {"block": [16, 100], "per_row": 1, "seed": 1}}), "/mask/random_blocks/block/1"),
    (config({"random_blocks": {"block": [16, 16], "per_row": 8, "seed": 1}}), "/mask/random_blocks/per_row"),
    (config({"block_list": {"block": [16, 16], "rows": [[0], [19]]}}), "/mask/block_list/rows/1"),
    (config({"painted": {"block": [16, 16], "cells": ["3-1"]}}), "/mask/painted/cells/0"),
    (config({"per_head": [{"full": {}}, {"causal": {}}]}, heads=1), "/mask/per_head"),
    (config({"and": [{"causal": {}}, {"sliding_window": {}}]}), "/mask/and/1/sliding_window"),
    (config({"or": []}), "/mask/or"),
    (config({"causal": {"offset": 1.5}}), "/mask/causal/offset"),
    (dict(config({"full": {}}), seq_len_q="100"), "/seq_len_q"),
    (dict(config({"full": {}}), block={"q": 100, "kv": 16}), "/block/q"),
    (dict(config({"full": {}}), heads=0), "/heads"),
    (dict(config({"full": {}}), extra=1), "/extra"),
]


def random_mask(rng, sq, skv, heads, batch, depth=0):
    """A random valid mask for these sizes: primitives with random parameters under and/or/not/per_head."""
    longest = max(sq, skv)
    if depth < 3 and rng.random() < 0.45:
        kind = rng.choice(["and", "or", "not", "per_head"] if depth == 0 or heads == 1 else ["and", "or", "not"])
        if kind == "not":
            return {"not": random_mask(rng, sq, skv, heads, batch, depth + 1)}
        n = rng.randint(1, min(3, heads)) if kind == "per_head" else rng.randint(1, 3)
        return {kind: [random_mask(rng, sq, skv, heads, batch, depth + 1) for _ in range(n)]}
    kind = rng.choice(["full", "causal", "sliding_window", "chunked_causal", "prefix_lm", "documents", "documents",
                       "global_tokens", "dilated", "sinks", "random_blocks", "block_list", "painted"])
    if kind == "full":
        return {"full": {}}
    if kind == "causal":
        return {"causal": {"offset": rng.randint(-skv, skv)}}
    if kind == "sliding_window":
        return {"sliding_window": {"left": rng.choice([-1, rng.randint(0, 40)]), "right": rng.choice([-1, rng.randint(0, 40)])}}
    if kind == "chunked_causal":
        return {"chunked_causal": {"chunk": rng.randint(1, longest)}}
    if kind == "prefix_lm":
        return {"prefix_lm": {"prefix": rng.randint(0, skv)}}
    if kind == "dilated":
        return {"dilated": {"stride": rng.randint(1, min(longest, 9))}}
    if kind == "sinks":
        return {"sinks": {"count": rng.randint(0, min(skv, 20))}}
    if kind == "global_tokens":
        if rng.random() < 0.5:
            return {"global_tokens": {"count": rng.randint(0, 10)}}
        return {"global_tokens": {"indices": [rng.randrange(longest) for _ in range(rng.randint(0, min(6, longest)))]}}
    if kind == "documents":
        def one():
            form = rng.choice(["lengths", "ids", "qkv"] if sq == skv else ["lengths", "qkv"])
            if form == "lengths":
                lengths, left = [], rng.randint(0, longest)
                while left > 0:
                    n = rng.randint(0, left)
                    lengths.append(n)
                    left -= n
                return {"lengths": lengths}
            ids = lambda n: sorted(rng.randint(-1, 4) for _ in range(n)) if rng.random() < 0.5 else \
                [rng.randint(-1, 3) for _ in range(n)]
            if form == "ids":
                return {"segment_ids": ids(sq)}
            return {"q_segment_ids": ids(sq), "kv_segment_ids": ids(skv)}
        if batch > 1 and rng.random() < 0.5:
            return {"documents": {"per_batch": [one() for _ in range(batch)]}}
        return {"documents": one()}
    bq, bkv = rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
    nq, nkv = -(-sq // bq), -(-skv // bkv)
    if kind == "random_blocks":
        return {"random_blocks": {"block": [bq, bkv], "per_row": rng.randint(0, nkv),
                                  "seed": rng.randint(-(1 << 63), (1 << 64) - 1)}}
    rows = [[rng.randrange(nkv) for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(0, nq))]
    if kind == "block_list":
        return {"block_list": {"block": [bq, bkv], "rows": rows}}
    return {"painted": {"block": [bq, bkv], "cells": [",".join(str(x) for x in r) for r in rows]}}


def random_config(seed):
    rng = random.Random(seed)
    sq = rng.randint(1, 160)
    skv = sq if rng.random() < 0.5 else rng.randint(1, 160)
    heads, batch = rng.randint(1, 4), rng.randint(1, 3)
    block = (rng.choice([16, 32, 64]), rng.choice([16, 32, 64]))
    return config(random_mask(rng, sq, skv, heads, batch), sq, skv, batch, heads, block, name=f"random {seed}")
