"""ab_table (the A/B ratio table of a kernel experiment) and sass_loops (a kernel's main-loop opcode counts), on
seeded synthetic inputs checked against what they were built from."""

import json
import os
import random
import statistics
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ab_table  # noqa: E402
import sass_loops  # noqa: E402


def write_points(folder, tag, row, rnd, points):
    with open(os.path.join(folder, f"{tag}-{row}-r{rnd}.jsonl"), "w", encoding="utf-8") as f:
        for p in points:
            f.write(json.dumps(p) + "\n")


@pytest.mark.parametrize("seed", [0, 1, 7, 23])
def test_ratios_pair_builds_within_a_round(tmp_path, seed):
    rng = random.Random(seed)
    rows = [f"row{i}-d{rng.choice([64, 128])}" for i in range(rng.randint(1, 4))]
    expected = {}
    for row in rows:
        for rnd in range(1, rng.randint(2, 5)):
            rates = {}
            for tag in ("A", "B"):
                pts = []
                for ps in ("fwd", "bwd"):
                    rate = rng.uniform(100, 700)
                    rates[(tag, ps)] = rate
                    pts.append({"status": "ok", "pass": ps, "useful_tflops": rate})
                # points that must not count: a failed one and another pass
                pts.append({"status": "error", "pass": "fwd", "useful_tflops": 1.0})
                pts.append({"status": "ok", "pass": "fwd+bwd", "useful_tflops": 2.0})
                write_points(tmp_path, tag, row, rnd, pts)
            for ps in ("fwd", "bwd"):
                expected.setdefault((row, ps), []).append(
                    (rnd, rates[("A", ps)], rates[("B", ps)], rates[("B", ps)] / rates[("A", ps)]))
    # a round where only one build ran is left out of the ratios
    write_points(tmp_path, "A", rows[0], 99, [{"status": "ok", "pass": "fwd", "useful_tflops": 300.0}])
    got = ab_table.ratios(ab_table.load(str(tmp_path)))
    assert set(got) == set(expected)
    for key, pairs in expected.items():
        assert [(r, pytest.approx(a), pytest.approx(b), pytest.approx(q)) for r, a, b, q in pairs] == got[key]
    lines = ab_table.table(ab_table.load(str(tmp_path)))
    for key, pairs in expected.items():
        qs = [q for *_, q in pairs]
        summary = [line for line in lines if line.split()[:3] == [key[0], key[1], "all"]]
        assert summary == [summary[0]]
        assert f"{min(qs):.3f}-{max(qs):.3f}, median {statistics.median(qs):.3f}" in summary[0]


def test_other_tags_and_unrelated_files(tmp_path):
    write_points(tmp_path, "main", "causal-8k-d64", 1, [{"pass": "bwd", "useful_tflops": 200.0}])
    write_points(tmp_path, "U", "causal-8k-d64", 1, [{"pass": "bwd", "useful_tflops": 210.0}])
    (tmp_path / "bench.log").write_text("not a result")
    (tmp_path / "notes.jsonl").write_text("{}")
    got = ab_table.ratios(ab_table.load(str(tmp_path)), "main", "U")
    assert got == {("causal-8k-d64", "bwd"): [(1, 200.0, 210.0, pytest.approx(1.05))]}


def listing(rng, loops):
    """A cuobjdump-like listing: straight-line code around `loops` loops, each (body opcodes); returns the text and
    each loop's opcode list as laid out (body plus its closing branch) and the number of instructions."""
    lines, addr, laid = ["\tcode for sm_90a", "\t\tFunction : k"], 0, []

    def emit(op, rest="R1, R2, R3"):
        nonlocal addr
        pred = rng.choice(["", "", "@P0 ", "@!P1 "])
        lines.append(f"        /*{addr:04x}*/                   {pred}{op} {rest} ;   /* 0x{rng.getrandbits(64):016x} */")
        lines.append(f"                                                          /* 0x{rng.getrandbits(64):016x} */")
        addr += 16

    filler = ["IMAD", "LOP3.LUT", "MOV", "ULOP3.LUT", "S2R", "BRA"]
    for body in loops:
        for _ in range(rng.randint(1, 6)):
            op = rng.choice(filler)
            emit(op, f"0x{addr + 0x100:x}" if op == "BRA" else "R1, R2, R3")  # forward branches only
        start = addr
        for op in body:
            emit(op)
        emit("BRA", f"0x{start:x}")
        laid.append([op.split(".")[0] for op in body] + ["BRA"])
    emit("EXIT", "")
    return "\n".join(lines) + "\n", laid, addr // 16


@pytest.mark.parametrize("seed", [0, 3, 11, 42])
def test_main_loop_is_the_one_with_most_tensor_instructions(seed):
    rng = random.Random(seed)
    ops = ["IMAD", "LOP3.LUT", "R2UR", "UIADD3", "FFMA", "MUFU.EX2", "STS.128", "SHFL.IDX", "HGMMA.64x64x16.F32.BF16"]
    loops = []
    for n in range(rng.randint(2, 5)):
        body = [rng.choice(ops) for _ in range(rng.randint(5, 300))]
        loops.append(body)
    text, laid, emitted = listing(rng, loops)
    hg = [sum(op == "HGMMA" for op in body) for body in laid]
    best = max(range(len(laid)), key=lambda i: (hg[i], -len(laid[i])))
    total, loop, common = sass_loops.summary(text, top=100)
    assert total == emitted
    assert loop == len(laid[best])
    expected = {}
    for op in laid[best]:
        expected[op] = expected.get(op, 0) + 1
    assert dict(common) == expected
