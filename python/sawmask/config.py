"""Reading saw.mask/1 configs with saw's checks (docs/config.md); a problem is a ConfigError naming its JSON path."""

import json
import math
import os
import re
from dataclasses import dataclass

from . import masks as M

SCHEMA = "saw.mask/1"
MAX_SEQ = 1 << 24
MAX_BATCH = 1024
MAX_HEADS = 1024
MAX_DEPTH = 64
MAX_BLOCK_INDEX = (1 << 20) - 1
MASK_KINDS = ("full", "causal", "sliding_window", "chunked_causal", "prefix_lm", "documents", "global_tokens",
              "dilated", "sinks", "random_blocks", "block_list", "painted", "and", "or", "not", "per_head")
TOP_KEYS = ("schema", "name", "description", "seq_len_q", "seq_len_kv", "batch", "heads", "block", "mask")
EXPORT_FORMATS = ("saw.flex/1", "saw.ejkernel/1", "saw.nsa/1", "saw.dense/1")


class ConfigError(ValueError):
    """A config saw would refuse: `path` is the JSON pointer of the value at fault ("" for the whole config)."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


@dataclass(frozen=True)
class MaskConfig:
    name: str
    seq_len_q: int
    seq_len_kv: int
    batch: int
    heads: int
    block_q: int
    block_kv: int
    mask: object  # a value of sawmask.masks
    description: str = ""
    source: dict = None  # the JSON object read, for writing it back

    @property
    def batch_period(self):
        """1 when every batch entry has the same mask, else the batch size."""
        return self.batch if M.varies_with_batch(self.mask) else 1

    @property
    def head_period(self):
        """1 when every head has the same mask, else the period with which heads repeat."""
        return M.head_period(self.mask, self.heads)

    def resolved(self, b, h):
        """The mask of batch entry b and head h, with per_head and per_batch picked."""
        return M.resolve(self.mask, b, h)

    def to_json(self):
        return json.dumps(self.source)


def load(spec):
    """A MaskConfig from a path, JSON text, bytes or an already parsed dict; raises ConfigError."""
    if isinstance(spec, MaskConfig):
        return spec
    if isinstance(spec, dict):
        return parse_object(spec)
    if isinstance(spec, bytes):
        spec = spec.decode("utf-8")
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and not spec.lstrip().startswith("{")):
        with open(spec, encoding="utf-8") as f:
            spec = f.read()
    return parse_object(_strict_json(spec))


def _strict_json(text):
    def no_duplicates(pairs):
        seen = {}
        for k, v in pairs:
            if k in seen:
                raise ConfigError("", f"duplicate key \"{k}\"")
            seen[k] = v
        return seen

    def no_constant(name):
        raise ConfigError("", f"not valid JSON: '{name}' is not a JSON number (NaN and Infinity are not allowed)")
    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        raise ConfigError("", f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def _describe(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, float):
        return "a number with a fraction" if math.isfinite(v) else "a number that is not finite"
    return str(v)


def _int(v, path, lo, hi):
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ConfigError(path, f"must be an integer in {lo}..{hi}, got {_describe(v)}")
    return v


def _obj(v, path, what, keys, owner):
    if not isinstance(v, dict):
        raise ConfigError(path, f"{what} is an object, got {_describe(v)}")
    for k in v:
        if k not in keys:
            raise ConfigError(path + "/" + _token(k), f"unknown key \"{k}\"; {owner} takes {', '.join(keys)}")
    return v


def _need(v, path, owner, *keys):
    for k in keys:
        if k not in v:
            raise ConfigError(path, f"{owner} needs \"{k}\"")


def _token(key):
    return key.replace("~", "~0").replace("/", "~1")


def _block_size(v, path):
    n = _int(v, path, 1, 2**31 - 1)
    if not (16 <= n <= 512 and n & (n - 1) == 0):
        raise ConfigError(path, f"block size {n} is not a power of two in 16..512")
    return n


def _block_pair(v, path):
    if not isinstance(v, list):
        raise ConfigError(path, "block takes [q, kv], two block sizes such as [64, 64]")
    if len(v) != 2:
        raise ConfigError(path, f"block takes [q, kv], two block sizes, got {len(v)} values")
    return _block_size(v[0], path + "/0"), _block_size(v[1], path + "/1")


def _int_array(v, path, lo, hi, most=None):
    if not isinstance(v, list):
        raise ConfigError(path, f"must be an array of integers, got {_describe(v)}")
    if most is not None and len(v) > most:
        raise ConfigError(path, f"has more than {most} entries, more than the longest sequence has tokens")
    return tuple(_int(x, f"{path}/{i}", lo, hi) for i, x in enumerate(v))


def _cells(text, path):
    if not isinstance(text, str):
        raise ConfigError(path, f"must be a string such as \"0-3,7\", got {_describe(text)}")
    if text == "":
        return ()
    out = set()
    for part in text.split(","):
        bounds = part.split("-", 1)
        if not all(re.fullmatch(r"[0-9]{1,7}", x) for x in bounds):
            shown = part if len(part) <= 24 else part[:24] + "..."
            raise ConfigError(path, f"\"{shown}\" is not a kv-block index or a range a-b (cells look like \"0-3,7\")")
        a, b = int(bounds[0]), int(bounds[-1])
        for x in (a, b):
            if x > MAX_BLOCK_INDEX:
                raise ConfigError(path, f"kv-block index {x} is past {MAX_BLOCK_INDEX}, more blocks than any sequence has")
        if b < a:
            raise ConfigError(path, f"range \"{part}\" runs backwards; write it as \"{b}-{a}\"")
        out.update(range(a, b + 1))
    return tuple(sorted(out))


def parse_object(root):
    """A MaskConfig from a parsed saw.mask/1 object, with every check of docs/config.md; raises ConfigError."""
    if not isinstance(root, dict):
        raise ConfigError("", f"a saw.mask/1 config is a JSON object, got {_describe(root)}")
    if "saw" in root and isinstance(root["saw"], dict) and root["saw"].get("format") in EXPORT_FORMATS:
        raise ConfigError("", f"this is a saw compile output ({root['saw']['format']}), not a saw.mask/1 config; "
                              "read it with sawmask.load_export")
    schema = root.get("schema")
    if isinstance(schema, str):
        m = re.fullmatch(r"saw\.mask/([0-9]{1,9})", schema)
        if m and int(m.group(1)) > 1:
            raise ConfigError("/schema", f"made by a newer saw ({schema}); this saw reads {SCHEMA}")
    for k in root:
        if k not in TOP_KEYS:
            raise ConfigError("/" + _token(k), f"unknown key \"{k}\"; a config takes {', '.join(TOP_KEYS)}")
    for k in ("schema", "name", "seq_len_q", "seq_len_kv", "mask"):
        if k not in root:
            raise ConfigError("", f"missing required key \"{k}\"")
    if schema != SCHEMA:
        shown = f"\"{schema}\"" if isinstance(schema, str) else _describe(schema)
        raise ConfigError("/schema", f"schema must be \"{SCHEMA}\", got {shown}")
    name = root["name"]
    if not isinstance(name, str) or not 1 <= len(name) <= 200:
        raise ConfigError("/name", f"must be a string of 1..200 characters, got {_describe(name)}")
    if not name.strip():
        raise ConfigError("/name", "must not be blank")
    description = root.get("description", "")
    if not isinstance(description, str) or len(description) > 4000:
        raise ConfigError("/description", f"must be a string of at most 4000 characters, got {_describe(description)}")
    sq = _int(root["seq_len_q"], "/seq_len_q", 1, MAX_SEQ)
    skv = _int(root["seq_len_kv"], "/seq_len_kv", 1, MAX_SEQ)
    batch = _int(root.get("batch", 1), "/batch", 1, MAX_BATCH)
    heads = _int(root.get("heads", 1), "/heads", 1, MAX_HEADS)
    bq, bkv = 128, 128
    if "block" in root:
        b = _obj(root["block"], "/block", "block", ("q", "kv"), "block")
        _need(b, "/block", "block", "q", "kv")
        bq, bkv = _block_size(b["q"], "/block/q"), _block_size(b["kv"], "/block/kv")
    reader = _MaskReader(sq, skv, batch, heads)
    mask = reader.mask(root["mask"], "/mask", 1)
    return MaskConfig(name, sq, skv, batch, heads, bq, bkv, mask, description, root)


class _MaskReader:
    def __init__(self, sq, skv, batch, heads):
        self.sq, self.skv, self.batch, self.heads = sq, skv, batch, heads
        self.longest = max(sq, skv)

    def mask(self, v, path, depth):
        if depth > MAX_DEPTH:
            raise ConfigError(path, f"masks nest deeper than {MAX_DEPTH} levels")
        if not isinstance(v, dict) or len(v) == 0:
            raise ConfigError(path, "a mask is an object with one key naming it, e.g. {\"causal\": {}}; known masks: "
                              + ", ".join(MASK_KINDS))
        kinds = list(v)
        kind = kinds[0]
        if kind not in MASK_KINDS:
            raise ConfigError(path + "/" + _token(kind), f"unknown mask \"{kind}\"; known masks: {', '.join(MASK_KINDS)}")
        if len(kinds) > 1:
            raise ConfigError(path + "/" + _token(kinds[1]), f"a mask object has exactly one key, but \"{kinds[1]}\" "
                              f"follows \"{kind}\"; combine masks with \"and\" or \"or\"")
        return getattr(self, "_" + kind)(v[kind], path + "/" + kind, depth)

    def _params(self, v, path, kind, keys):
        return _obj(v, path, kind, keys, kind)

    def _full(self, v, path, depth):
        self._params(v, path, "full", ())
        return M.Full()

    def _causal(self, v, path, depth):
        p = self._params(v, path, "causal", ("offset",))
        return M.Causal(_int(p.get("offset", 0), path + "/offset", -MAX_SEQ, MAX_SEQ))

    def _sliding_window(self, v, path, depth):
        p = self._params(v, path, "sliding_window", ("left", "right"))
        if not p:
            raise ConfigError(path, "sliding_window needs \"left\", \"right\" or both (-1 = unbounded; a missing one is -1)")
        return M.SlidingWindow(_int(p.get("left", -1), path + "/left", -1, MAX_SEQ),
                               _int(p.get("right", -1), path + "/right", -1, MAX_SEQ))

    def _required(self, v, path, kind, key, lo, hi):
        p = self._params(v, path, kind, (key,))
        _need(p, path, kind, key)
        return _int(p[key], f"{path}/{key}", lo, hi)

    def _chunked_causal(self, v, path, depth):
        return M.ChunkedCausal(self._required(v, path, "chunked_causal", "chunk", 1, MAX_SEQ))

    def _prefix_lm(self, v, path, depth):
        prefix = self._required(v, path, "prefix_lm", "prefix", 0, MAX_SEQ)
        if prefix > self.skv:
            raise ConfigError(path + "/prefix", f"prefix {prefix} is longer than seq_len_kv {self.skv}")
        return M.PrefixLm(prefix)

    def _dilated(self, v, path, depth):
        stride = self._required(v, path, "dilated", "stride", 1, MAX_SEQ)
        if stride > self.longest:
            raise ConfigError(path + "/stride", f"stride {stride} is longer than the sequence ({self.longest})")
        return M.Dilated(stride)

    def _sinks(self, v, path, depth):
        count = self._required(v, path, "sinks", "count", 0, MAX_SEQ)
        if count > self.skv:
            raise ConfigError(path + "/count", f"sink count {count} is larger than seq_len_kv {self.skv}")
        return M.Sinks(count)

    def _global_tokens(self, v, path, depth):
        p = self._params(v, path, "global_tokens", ("indices", "count"))
        if len(p) != 1:
            raise ConfigError(path, "global_tokens takes either \"indices\": [...] or \"count\": n (the first n tokens)")
        if "count" in p:
            indices = tuple(range(_int(p["count"], path + "/count", 0, MAX_SEQ)))
        else:
            indices = tuple(sorted(set(_int_array(p["indices"], path + "/indices", 0, MAX_SEQ - 1, self.longest))))
        if indices and indices[-1] >= self.longest:
            raise ConfigError(path, f"global token {indices[-1]} is past the sequence (length {self.longest})")
        return M.GlobalTokens(indices)

    def _random_blocks(self, v, path, depth):
        p = self._params(v, path, "random_blocks", ("block", "per_row", "seed"))
        _need(p, path, "random_blocks", "block", "per_row", "seed")
        bq, bkv = _block_pair(p["block"], path + "/block")
        per_row = _int(p["per_row"], path + "/per_row", 0, MAX_BLOCK_INDEX + 1)
        seed = p["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or not -(1 << 63) <= seed < (1 << 64):
            raise ConfigError(path + "/seed", f"seed must be an integer of 64 bits ({-(1 << 63)}..{(1 << 64) - 1}), "
                              f"got {_describe(seed)}")
        nkv = -(-self.skv // bkv)
        if per_row > nkv:
            raise ConfigError(path + "/per_row", f"per_row {per_row} is more than the {nkv} kv-blocks of size {bkv}")
        return M.RandomBlocks(bq, bkv, per_row, seed & M.MASK64)

    def _block_rows(self, v, path, kind):
        painted = kind == "painted"
        rows_key = "cells" if painted else "rows"
        p = self._params(v, path, kind, ("block", rows_key))
        _need(p, path, kind, "block", rows_key)
        bq, bkv = _block_pair(p["block"], path + "/block")
        raw = p[rows_key]
        rp = f"{path}/{rows_key}"
        if not isinstance(raw, list):
            raise ConfigError(rp, "cells take an array of strings, one per q-block row, e.g. [\"0-3,7\", \"\", \"2\"]"
                              if painted else "rows take an array of arrays of kv-block indices, one per q-block row")
        rows = tuple(_cells(r, f"{rp}/{i}") if painted else tuple(sorted(set(_int_array(r, f"{rp}/{i}", 0, MAX_BLOCK_INDEX))))
                     for i, r in enumerate(raw))
        nq, nkv = -(-self.sq // bq), -(-self.skv // bkv)
        if len(rows) > nq:
            raise ConfigError(rp, f"lists {len(rows)} q-block rows but there are only {nq} q-blocks of size {bq}")
        for i, r in enumerate(rows):
            if r and r[-1] >= nkv:
                raise ConfigError(f"{rp}/{i}", f"kv-block {r[-1]} is past the last kv-block ({nkv - 1})")
        return (M.Painted if painted else M.BlockList)(bq, bkv, rows)

    def _block_list(self, v, path, depth):
        return self._block_rows(v, path, "block_list")

    def _painted(self, v, path, depth):
        return self._block_rows(v, path, "painted")

    def _documents(self, v, path, depth):
        keys = ("lengths", "segment_ids", "q_segment_ids", "kv_segment_ids", "per_batch")
        p = self._params(v, path, "documents", keys)
        if "per_batch" in p:
            if len(p) > 1:
                raise ConfigError(path, "per_batch goes alone; put lengths or segment ids inside each per_batch entry")
            entries = p["per_batch"]
            pp = path + "/per_batch"
            if not isinstance(entries, list):
                raise ConfigError(pp, "per_batch takes an array with one object per batch entry")
            if not entries:
                raise ConfigError(pp, "per_batch needs at least one entry")
            if len(entries) > 1 and len(entries) != self.batch:
                raise ConfigError(pp, f"per_batch lists {len(entries)} entries but batch is {self.batch}")
            return M.Documents(tuple(self._segments(e, f"{pp}/{i}", "a per_batch entry", keys[:4])
                                     for i, e in enumerate(entries)))
        return M.Documents((self._segments(p, path, "documents", keys),))

    def _segments(self, v, path, owner, keys):
        p = _obj(v, path, owner, keys[:4], owner)
        forms = "give one of: \"lengths\", \"segment_ids\", \"q_segment_ids\" with \"kv_segment_ids\"" + (
            ", \"per_batch\"" if path.endswith("/documents") else "")
        if not p:
            raise ConfigError(path, "documents need their tokens' documents; " + forms)
        q, kv = "q_segment_ids" in p, "kv_segment_ids" in p
        if q != kv:
            raise ConfigError(path, ("q_segment_ids needs kv_segment_ids" if q else "kv_segment_ids needs q_segment_ids")
                              + " (or give \"segment_ids\" when seq_len_q == seq_len_kv)")
        if len(p) > (2 if q else 1):
            raise ConfigError(path, f"more than one way to give documents ({', '.join(sorted(p))}); {forms}")
        if "lengths" in p:
            lengths = _int_array(p["lengths"], path + "/lengths", 0, MAX_SEQ, self.longest)
            if sum(lengths) > self.longest:
                raise ConfigError(path + "/lengths", f"document lengths sum to {sum(lengths)}, past the sequence "
                                  f"length {self.longest}")
            return M.Lengths(lengths)
        if "segment_ids" in p:
            ids = _int_array(p["segment_ids"], path + "/segment_ids", -1, 2**31 - 1, self.longest)
            if len(ids) != self.sq:
                raise ConfigError(path + "/segment_ids", f"has {len(ids)} ids but seq_len_q is {self.sq}")
            if self.sq != self.skv:
                raise ConfigError(path + "/segment_ids",
                                  "segment_ids needs seq_len_q == seq_len_kv; give q_segment_ids and kv_segment_ids")
            return M.SegmentIds(ids, ids)
        q_ids = _int_array(p["q_segment_ids"], path + "/q_segment_ids", -1, 2**31 - 1, self.longest)
        kv_ids = _int_array(p["kv_segment_ids"], path + "/kv_segment_ids", -1, 2**31 - 1, self.longest)
        if len(q_ids) != self.sq:
            raise ConfigError(path + "/q_segment_ids", f"has {len(q_ids)} ids but seq_len_q is {self.sq}")
        if len(kv_ids) != self.skv:
            raise ConfigError(path + "/kv_segment_ids", f"has {len(kv_ids)} ids but seq_len_kv is {self.skv}")
        return M.SegmentIds(q_ids, kv_ids)

    def _list(self, v, path, kind, depth):
        if not isinstance(v, list):
            raise ConfigError(path, f"{kind} takes an array of masks")
        if not v:
            raise ConfigError(path, f"{kind} needs at least one mask")
        if len(v) > 4096:
            raise ConfigError(path, f"{kind} lists more than 4096 masks")
        return tuple(self.mask(c, f"{path}/{i}", depth + 1) for i, c in enumerate(v))

    def _and(self, v, path, depth):
        return M.And(self._list(v, path, "and", depth))

    def _or(self, v, path, depth):
        return M.Or(self._list(v, path, "or", depth))

    def _not(self, v, path, depth):
        return M.Not(self.mask(v, path, depth + 1))

    def _per_head(self, v, path, depth):
        variants = self._list(v, path, "per_head", depth)
        if len(variants) > self.heads:
            raise ConfigError(path, f"per_head lists {len(variants)} masks but there are only {self.heads} heads")
        return M.PerHead(variants)


def load_export(spec):
    """A `saw compile` output (flex, ejkernel, nsa or dense) as a dict; its int arrays as NumPy int32 arrays."""
    import numpy as np
    if isinstance(spec, dict):
        data = spec
    else:
        with open(spec, encoding="utf-8") as f:
            data = json.load(f)
    fmt = data.get("saw", {}).get("format") if isinstance(data.get("saw"), dict) else None
    if fmt not in EXPORT_FORMATS:
        raise ConfigError("/saw/format", f"not a saw compile output (expected one of {', '.join(EXPORT_FORMATS)})")
    out = {}
    for k, v in data.items():
        if fmt == "saw.dense/1" and k == "mask":
            out[k] = np.array([[[np.frombuffer(r.encode("ascii"), np.uint8) == ord("1") for r in per_h]
                                for per_h in per_b] for per_b in v], dtype=bool).reshape(
                len(v), len(v[0]), len(v[0][0]), -1)
        elif isinstance(v, list) and k not in ("block_size", "seq_lengths"):
            out[k] = np.asarray(v, dtype=np.int32)
        else:
            out[k] = v
    return out
