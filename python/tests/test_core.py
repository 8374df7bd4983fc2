"""sawmask's reading and token meaning: against a per-pair reading of docs/config.md, and against saw's Java engine."""

import copy
import json
import os
import importlib
import random

import numpy as np
import pytest

import sawmask
from sawmask import numpy as snp
from configs import BAD, PRIMITIVES, config, random_config

RANDOM_SEED = int(os.environ.get("SAWMASK_TEST_SEED", "20261201"))
RANDOM_CONFIGS = 250


def spec_attends(mask, b, h, i, j, sq, skv):
    """One pair, straight from the table in docs/config.md (deliberately not sharing sawmask's code)."""
    kind, p = next(iter(mask.items()))
    if kind == "full":
        return True
    if kind == "causal":
        return j <= i + p.get("offset", 0)
    if kind == "sliding_window":
        left, right = p.get("left", -1), p.get("right", -1)
        return (left == -1 or j >= i - left) and (right == -1 or j <= i + right)
    if kind == "chunked_causal":
        return i // p["chunk"] == j // p["chunk"] and j <= i
    if kind == "prefix_lm":
        return j < p["prefix"] or j <= i
    if kind == "documents":
        if "per_batch" in p:
            p = p["per_batch"][0] if len(p["per_batch"]) == 1 else p["per_batch"][b]
        if "lengths" in p:
            def seg(t):
                end = 0
                for d, n in enumerate(p["lengths"]):
                    end += n
                    if t < end:
                        return d
                return -1
            a, c = seg(i), seg(j)
        elif "segment_ids" in p:
            a, c = p["segment_ids"][i], p["segment_ids"][j]
        else:
            a, c = p["q_segment_ids"][i], p["kv_segment_ids"][j]
        return a == c and a != -1
    if kind == "global_tokens":
        g = set(p["indices"]) if "indices" in p else set(range(p["count"]))
        return i in g or j in g
    if kind == "dilated":
        return (i - j) % p["stride"] == 0
    if kind == "sinks":
        return j < p["count"]
    if kind in ("random_blocks", "block_list", "painted"):
        bq, bkv = p["block"]
        r = i // bq
        if kind == "random_blocks":
            row = sawmask.random_row(p["seed"], r, p["per_row"], -(-skv // bkv))
        elif kind == "block_list":
            row = p["rows"][r] if r < len(p["rows"]) else []
        else:
            row = []
            if r < len(p["cells"]) and p["cells"][r]:
                for part in p["cells"][r].split(","):
                    a, _, c = part.partition("-")
                    row.extend(range(int(a), int(c or a) + 1))
        return j // bkv in row
    if kind == "and":
        return all(spec_attends(m, b, h, i, j, sq, skv) for m in p)
    if kind == "or":
        return any(spec_attends(m, b, h, i, j, sq, skv) for m in p)
    if kind == "not":
        return not spec_attends(p, b, h, i, j, sq, skv)
    if kind == "per_head":
        return spec_attends(p[h % len(p)], b, h, i, j, sq, skv)
    raise AssertionError(kind)


def full_dense(cfg_dict):
    d = snp.dense(cfg_dict)
    return np.broadcast_to(d, (cfg_dict.get("batch", 1), cfg_dict.get("heads", 1)) + d.shape[2:])


def test_random_row_matches_the_published_values():
    assert sawmask.random_row(0, 0, 5, 37) == [1, 13, 16, 22, 25]
    assert sawmask.random_row(-7, 3, 4, 100) == [35, 61, 66, 80]
    assert sawmask.random_row(42, 1000, 3, 1024) == [234, 294, 924]


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_primitive_matches_the_documented_meaning(name):
    c = PRIMITIVES[name]
    d = full_dense(c)
    sq, skv = c["seq_len_q"], c["seq_len_kv"]
    want = np.array([[[[spec_attends(c["mask"], b, h, i, j, sq, skv) for j in range(skv)] for i in range(sq)]
                      for h in range(c["heads"])] for b in range(c["batch"])])
    assert np.array_equal(d, want)


def test_random_configs_match_the_documented_meaning():
    for n in range(40):
        seed = RANDOM_SEED + n
        c = random_config(seed)
        c.update(seq_len_q=min(c["seq_len_q"], 40), seq_len_kv=min(c["seq_len_kv"], 40))
        try:
            sawmask.load(c)
        except sawmask.ConfigError:
            continue  # shrinking may leave parameters past the sequence; the saw comparison covers full sizes
        sq, skv = c["seq_len_q"], c["seq_len_kv"]
        d = full_dense(c)
        want = np.array([[[[spec_attends(c["mask"], b, h, i, j, sq, skv) for j in range(skv)] for i in range(sq)]
                          for h in range(c["heads"])] for b in range(c["batch"])])
        assert np.array_equal(d, want), f"config seed {seed} (SAWMASK_TEST_SEED={RANDOM_SEED}): {json.dumps(c)[:400]}"


@pytest.mark.parametrize("bad,path", BAD, ids=[p for _, p in BAD])
def test_bad_configs_name_the_json_path(bad, path):
    with pytest.raises(sawmask.ConfigError) as e:
        sawmask.load(bad)
    assert e.value.path == path
    assert str(e.value).startswith(path + ": ") and "\n" not in str(e.value)


def test_reading_text_rejects_duplicate_keys_and_nan():
    with pytest.raises(sawmask.ConfigError, match="duplicate key \"heads\""):
        sawmask.load('{"heads": 1, "heads": 2}')
    with pytest.raises(sawmask.ConfigError, match="NaN"):
        sawmask.load('{"schema": "saw.mask/1", "batch": NaN}')


def test_a_compile_output_is_not_a_config(tmp_path):
    export = {"saw": {"format": "saw.flex/1"}, "block_size": [16, 16]}
    with pytest.raises(sawmask.ConfigError, match="load_export"):
        sawmask.load(export)


def test_a_file_and_its_text_and_dict_read_the_same(tmp_path):
    c = PRIMITIVES["documents per batch"]
    p = tmp_path / "m.json"
    p.write_text(json.dumps(c))
    for spec in (str(p), p, json.dumps(c), c):
        assert sawmask.load(spec).mask == sawmask.load(c).mask


def test_batch_and_head_periods_follow_saw():
    assert sawmask.load(PRIMITIVES["per head"]).head_period == 3
    assert sawmask.load(PRIMITIVES["per head nested"]).head_period == 6
    assert sawmask.load(PRIMITIVES["documents per batch"]).batch_period == 3
    assert sawmask.load(PRIMITIVES["causal"]).head_period == 1


# ---- against saw's Java engine ----


def expand(arr, batch, heads):
    return np.broadcast_to(arr, (batch, heads) + arr.shape[2:])


def check_against_saw(oracle, c, label):
    dense = oracle.ask("dense", c)
    assert "error" not in dense, f"{label}: saw refused it: {dense['error']}"
    theirs = expand(sawmask.load_export(dense)["mask"], c["batch"], c["heads"])
    ours = full_dense(c)
    if not np.array_equal(ours, theirs):
        b, h, i, j = np.argwhere(ours != theirs)[0]
        raise AssertionError(f"{label}: token ({b}, {h}, {i}, {j}) differs: sawmask {ours[b, h, i, j]}, saw "
                             f"{theirs[b, h, i, j]}; config {json.dumps(c)[:600]}")
    tiles = snp.tile_classes(c)
    flex = sawmask.load_export(oracle.ask("flex", c))
    ours_flex = snp.flex_arrays(expand(tiles, c["batch"], c["heads"]))
    for k, v in ours_flex.items():
        assert np.array_equal(v, expand(flex[k], c["batch"], c["heads"])), f"{label}: flex {k} differs"
    ej = sawmask.load_export(oracle.ask("ejkernel", c))
    ours_ej = snp.ejkernel_bounds(tiles, c["batch"], c["heads"])
    for k, v in ours_ej.items():
        assert np.array_equal(np.asarray(v), np.asarray(ej[k])), f"{label}: ejkernel {k} differs: {v} vs {ej[k]}"


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_primitive_matches_saw(oracle, name):
    check_against_saw(oracle, PRIMITIVES[name], name)


def test_random_nested_configs_match_saw(oracle):
    for n in range(RANDOM_CONFIGS):
        seed = RANDOM_SEED + n
        check_against_saw(oracle, random_config(seed), f"random config seed {seed} (SAWMASK_TEST_SEED={RANDOM_SEED})")


def test_presets_match_saw_at_small_sizes(oracle):
    """Every shipped preset at the shortest of a few sequence lengths it fits (as `saw compile --seq N` would)."""
    presets = os.path.join(os.path.dirname(__file__), "..", "..", "presets")
    checked = []
    for f in sorted(os.listdir(presets)):
        if not f.endswith(".json"):
            continue
        with open(os.path.join(presets, f), encoding="utf-8") as fh:
            c = json.load(fh)
        for seq in (512, 1024, 2048, 4096):
            small = dict(copy.deepcopy(c), seq_len_q=seq, seq_len_kv=seq, heads=min(c.get("heads", 1), 4))
            try:
                sawmask.load(small)
            except sawmask.ConfigError:
                continue
            check_against_saw(oracle, small, f"{f} at {seq} tokens")
            checked.append(f)
            break
    assert len(checked) >= 8, f"only {checked} fit a short sequence"


@pytest.mark.parametrize("bad,path", BAD, ids=[p for _, p in BAD])
def test_bad_configs_name_the_same_path_as_saw(oracle, bad, path):
    answer = oracle.ask("dense", bad)
    assert "error" in answer, f"saw accepted {bad}"
    assert answer["error"].startswith(path + ": "), answer["error"]


def test_random_configs_agree_with_saw_on_acceptance(oracle):
    rng = random.Random(RANDOM_SEED)
    for n in range(60):
        c = random_config(RANDOM_SEED + 10000 + n)
        # shrink the sequences: some parameters may now be past them, and both must agree on that
        c.update(seq_len_q=rng.randint(1, 30), seq_len_kv=rng.randint(1, 30))
        answer = oracle.ask("dense", c)
        try:
            sawmask.load(c)
            ok, err = True, None
        except sawmask.ConfigError as e:
            ok, err = False, str(e)
        assert ok == ("error" not in answer), f"seed {RANDOM_SEED + 10000 + n}: sawmask {err}, saw {answer.get('error')}"


@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_adapters_say_clearly_when_their_framework_is_missing(framework):
    import importlib.util
    if importlib.util.find_spec(framework) is not None:
        pytest.skip(f"{framework} is installed here; tests/test_{framework}.py covers the adapter")
    adapter = importlib.import_module(f"sawmask.{framework}")  # importing the adapter alone needs no framework
    call = adapter.mask_mod if framework == "torch" else adapter.splash_mask
    with pytest.raises(ImportError, match=f"sawmask.{framework} needs"):
        call(PRIMITIVES["causal"])
