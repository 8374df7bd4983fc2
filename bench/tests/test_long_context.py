"""Tests of the long-context FlexAttention side (issue 18) that need no GPU and no torch: reading saw.flex/1 exports
without json lists (compare_flex.read_flex, parse_ints) and the saw-vs-Flex table (long_context_table)."""

import json
import os
import random
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import compare_flex  # noqa: E402
import long_context_table as lct  # noqa: E402


@pytest.mark.parametrize("seed", [0, 1, 2, 18])
def test_listed_entries_reads_each_lines_first_entries_and_zeros_the_rest(seed):
    rnd = random.Random(seed)
    shape = [rnd.randint(1, 3), rnd.randint(1, 3), rnd.randint(1, 9), rnd.randint(1, 9)]
    a = np.array([rnd.choice([0, 7, 10, 99, 100, 8191, 2**31 - 1, rnd.randrange(10**6)])
                  for _ in range(int(np.prod(shape)))], dtype=np.int64).reshape(shape)
    num = np.array([rnd.randint(0, shape[-1]) for _ in range(int(np.prod(shape[:-1])))]).reshape(shape[:-1])
    text = json.dumps(a.tolist(), separators=(",", ":")).encode()
    got = compare_flex.listed_entries(text, num, shape[-1])
    want = np.where(np.arange(shape[-1]) < num[..., None], a, 0)
    assert np.array_equal(got, want), f"seed {seed}"


def test_listed_entries_refuses_lines_that_do_not_match_the_counts():
    with pytest.raises(ValueError, match="lines"):
        compare_flex.listed_entries(b"[[[1,2],[3,4]]]", np.array([[1]]), 2)
    with pytest.raises(ValueError, match="at most"):
        compare_flex.listed_entries(b"[[[1,2]]]", np.array([[3]]), 2)


def write_flex(path, arrays, sq, skv, block):
    """A file laid out as saw writes saw.flex/1 (FormatJson: each top-level field on a line of its own)."""
    fields = {"saw": {"format": "saw.flex/1", "seq_len_q": sq, "seq_len_kv": skv, "batch": 1, "heads": 4,
                      "block_q": block, "block_kv": block},
              "block_size": [block, block], "seq_lengths": [sq, skv], **arrays}
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(json.dumps(k) + ":" + json.dumps(v, separators=(",", ":"))
                                   for k, v in fields.items()) + "\n}\n")


@pytest.mark.parametrize("heads", [1, 3])
def test_read_flex_matches_json_load_and_reads_only_the_asked_arrays(tmp_path, heads):
    rnd = np.random.default_rng(heads)
    nq, nkv = 5, 7
    arrays = {}
    for stem, lines, length in (("kv", nq, nkv), ("full_kv", nq, nkv), ("q", nkv, nq), ("full_q", nkv, nq)):
        arrays[stem + "_num_blocks"] = rnd.integers(0, length + 1, (1, heads, lines)).tolist()
        arrays[stem + "_indices"] = np.argsort(rnd.random((1, heads, lines, length)), axis=-1).tolist()
    path = tmp_path / "layout-0.flex.json"
    write_flex(path, arrays, nq * 128, nkv * 128, 128)
    ref = json.load(open(path))
    flex, got = compare_flex.read_flex(str(path), compare_flex.KV_KEYS + compare_flex.Q_KEYS)
    assert flex["seq_lengths"] == [nq * 128, nkv * 128] and flex["block_size"] == [128, 128]
    for k, v in got.items():
        want = np.array(ref[k])
        if k.endswith("_indices"):  # only the listed entries are read
            want = np.where(np.arange(want.shape[-1]) < np.array(ref[k.replace("_indices", "_num_blocks")])[..., None], want, 0)
        assert v.dtype == np.int32 and np.array_equal(v, want), k
    _, kv_only = compare_flex.read_flex(str(path), compare_flex.KV_KEYS)
    assert set(kv_only) == set(compare_flex.KV_KEYS)


def bench_file(path, rows, backend="cuda"):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"schema": "saw.bench/1", "backend": backend}) + "\n")
        for r in rows:
            f.write(json.dumps(r) + "\n")


def row(p, ms, flops, status="ok", backend="gpu"):
    ok = status == "ok"
    return {"pass": p, "backend": backend, "status": status, "median_ms": ms if ok else None, "useful_flops": flops,
            "useful_tflops": flops / (ms * 1e-3) / 1e12 if ok else None}


def test_table_has_ratios_base_columns_and_flex_errors_worst_ratio_first(tmp_path):
    out = tmp_path
    (out / "flex").mkdir()
    F = 1e15  # FLOPs per pass
    bench_file(out / "bench-chunked-262144.json", [row("fwd", 2.0, F / 16), row("bwd", 5.0, F / 8)])
    bench_file(out / "bench-chunked-1048576.json", [row("fwd", 9.0, F / 4), row("bwd", 22.0, F / 2)])
    bench_file(out / "bench-docs64k-1048576.json", [row("fwd", 10.0, F), row("bwd", 30.0, F)])
    bench_file(out / "bench-window-1048576.json", [row("fwd", 10.0, F), row("bwd", 30.0, F)])
    bench_file(out / "flex" / "flex-bench-chunked-1048576.json",
               [row("fwd", 12.0, F / 4, backend="flexattention"), row("bwd", 40.0, F / 2, backend="flexattention")])
    bench_file(out / "flex" / "flex-bench-docs64k-1048576.json",
               [row("fwd", 11.0, F, backend="flexattention"), row("bwd", 33.0, F, backend="flexattention")])
    bench_file(out / "flex" / "flex-bench-window-1048576.json",
               [row("fwd", 0, F, backend="flexattention",
                    status="failed: OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has"),
                row("bwd", 0, F, backend="flexattention", status="skipped: past the time budget (--budget-s 150)")])
    lines = lct.lines(lct.collect(str(out))[0])
    by = {(l[0], l[1]): l for l in lines}
    chunked = by[("chunked", 1048576)]
    assert chunked[4] == pytest.approx(12.0 / 9.0)                      # saw/Flex fwd: the time ratio
    assert chunked[7] == pytest.approx(52.0 / 31.0)                     # fwd+bwd: summed times
    assert chunked[8] == pytest.approx((F / 4 / 9.0) / (F / 16 / 2.0))  # saw fwd vs its 256K row
    assert [l[:2] for l in lines][:2] == [("docs64k", 1048576), ("chunked", 1048576)]  # worst fwd+bwd ratio first
    window = by[("window", 1048576)]
    assert window[7] is None and window[10] == "fwd: failed: OutOfMemoryError: CUDA out of memory."
    assert by[("chunked", 262144)][10].startswith("no Flex row")
    text = lct.render(lines)
    assert "worst 1.10 (docs64k 1048576), target 1.2; 1 of 2 rows at or above it" in text
    assert text.splitlines()[2].startswith("docs64k")
    assert "create_block_mask" not in text


def test_the_footer_names_the_rows_whose_block_mask_create_block_mask_built(tmp_path):
    out = tmp_path / "long-context"
    (out / "flex").mkdir(parents=True)
    F = 1e15
    bench_file(out / "bench-window-2097152.json", [row("fwd", 10.0, F), row("bwd", 30.0, F)])
    flex = [row("fwd", 12.0, F, backend="flexattention"), row("bwd", 40.0, F, backend="flexattention")]
    for r in flex:
        r["layout"] = "layouts/window-2097152/layout-0.config.json"
    bench_file(out / "flex" / "flex-bench-window-2097152.json", flex)
    cells = lct.collect(str(out))[0]
    created = lct.built_by_create_block_mask(cells)
    assert created == [("window", 2097152)]
    text = lct.render(lct.lines(cells), created=created)
    assert "at window 2097152 (no export past 2 GB) create_block_mask over the closed-form mask_mod, compiled" in text


def test_a_row_naming_a_bare_config_gets_create_block_masks_block_mask(tmp_path):
    """saw bench names a config instead of a flex file where the file would pass 2 GB (2M tokens at 128x128); the
    block mask compare_flex builds from it must be the one it builds from saw's export of the same layout."""
    torch = pytest.importorskip("torch")
    jar = os.environ.get("SAW_JAR")
    if not jar:
        pytest.skip("SAW_JAR is not set: this test runs saw bench (SAW_JAR=app/target/saw.jar after mvn package)")
    import subprocess
    from torch.nn.attention import flex_attention as flex_mod
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"schema": "saw.mask/1", "name": "docs", "seq_len_q": 1000, "seq_len_kv": 1000,
                                "batch": 1, "heads": 2, "block": {"q": 128, "kv": 128},
                                "mask": {"and": [{"causal": {"offset": 0}}, {"documents": {"lengths": [300, 500, 200]}},
                                                 {"or": [{"sinks": {"count": 4}}, {"sliding_window": {"left": 200, "right": 0}}]}]}}))
    results = tmp_path / "r.json"
    subprocess.run(["java", "-jar", jar, "bench", str(spec), "--heads", "2", "--kv-heads", "1", "--head-dim", "16",
                    "--pass", "fwd", "--backend", "cpu", "--reps", "1", "--warmup", "0", "--out", str(results),
                    "--export-flex", str(tmp_path / "layouts")], check=True, capture_output=True)
    row = compare_flex.read_results(str(results))[1][0]
    flex_path = str(tmp_path / row["layout"])
    assert flex_path.endswith(".flex.json")
    st = compare_flex.sawmask_torch()
    checks = {}
    exported, check, causal = compare_flex.block_mask_for(torch, flex_mod, flex_path, row["tile"], "cpu", checks)
    built, note, _ = compare_flex.block_mask_for(torch, flex_mod, flex_path.replace(".flex.json", ".config.json"),
                                                 row["tile"], "cpu", checks)
    assert check == "ok", check
    assert causal is None and note.startswith("none: no saw export")
    config = json.load(open(flex_path.replace(".flex.json", ".config.json")))
    assert st.compare_tiles(st.tile_classes(built), st.tile_classes(exported), config) == "ok"
    assert built.BLOCK_SIZE == exported.BLOCK_SIZE and tuple(built.seq_lengths) == (1000, 1000)
