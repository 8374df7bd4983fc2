"""frontier-table.sh's rounds and frontier_table.py's table, on a fake pack whose `saw bench` and peer scripts write
seeded rates: the order of each round, and every row's medians, ranges and ratios against brute force."""

import json
import os
import random
import shutil
import statistics
import subprocess
import sys

import pytest

GPU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu")
sys.path.insert(0, GPU)
import frontier_table  # noqa: E402

DENSE = ["causal-8k-d128", "causal-16k-d128", "gqa-32k-d128", "causal-8k-d64", "causal-16k-d64", "gqa-32k-d64"]
RAGGED = ["docs64-32k", "docs8-8k", "docs8-16k", "window1024-16k"]


def rates_for(seed, rounds):
    """{(round, side, row, pass): useful TFLOP/s}, side saw or peer, rows as the table names them."""
    rng = random.Random(seed)
    return {(r, side, row, ps): round(rng.uniform(150, 700), 1)
            for r in range(1, rounds + 1) for side in ("saw", "peer")
            for row in DENSE + [x + "-d128" for x in RAGGED] for ps in ("fwd", "bwd")}


def fake_pack(tmp_path, rates):
    """The pack's scripts, with `saw` and the two peer scripts replaced by ones that log their call and print the
    given rates (the round is the folder they write into, or a counter for the peers)."""
    pack = tmp_path / "pack"
    os.makedirs(pack)
    for name in ("frontier-table.sh", "specs-lib.sh", "ragged_rows.py", "frontier_table.py"):
        shutil.copy(os.path.join(GPU, name), pack)
    log = tmp_path / "order.log"
    saw_lines = {}
    for (r, side, row, ps), t in rates.items():
        if side == "saw":
            saw_lines.setdefault((r, row), []).append(
                f'{{"status":"ok","pass":"{ps}","median_ms":1.0,"useful_tflops":{t},"kernel":"k-{ps}"}}')
    cases = "\n".join(f'  "r{r}/results/{row}.jsonl") printf \'%s\\n\' {" ".join(repr(x) for x in lines)} >"$out";;'
                      for (r, row), lines in saw_lines.items())
    (pack / "saw").write_text(f"""#!/usr/bin/env bash
while [[ $# -gt 0 ]]; do [[ $1 == --out ]] && out=$2; shift; done
key=${{out#*/frontier/}}
echo "saw $key" >>"{log}"
case "$key" in
{cases}
esac
""")
    os.chmod(pack / "saw", 0o755)
    peer = {}
    for (r, side, row, ps), t in rates.items():
        if side == "peer":
            peer.setdefault(r, {}).setdefault(row, {})[ps] = t
    cudnn = {r: "".join(f"{row} fwd 1.0 {v['fwd']} bwd 1.0 {v['bwd']}\\n" for row, v in rows.items() if row in DENSE)
             for r, rows in peer.items()}
    # two ragged peers: the table takes the faster of each pass
    varlen = {r: "".join(f"{row[:-5]} varlen_attn fwd 1.0 {v['fwd']} bwd 1.0 {v['bwd'] / 2}\\n"
                         f"{row[:-5]} cuDNN-NJT fwd 1.0 {v['fwd'] / 3} bwd 1.0 {v['bwd']}\\n"
                         f"{row[:-5]} cuDNN-NJT check: 1.00e-02\\n"
                         for row, v in rows.items() if row not in DENSE) for r, rows in peer.items()}
    shim = tmp_path / "bin"
    os.makedirs(shim)
    calls = tmp_path / "peer-calls"
    (shim / "python3").write_text(f"""#!/usr/bin/env bash
case "$1" in
  *cudnn.py|*varlen_peers.py)
    n=$(( $(cat "{calls}-$(basename "$1")" 2>/dev/null || echo 0) + 1 )); echo $n >"{calls}-$(basename "$1")"
    echo "$(basename "$1") r$n $*" >>"{log}"
    case "$(basename "$1"):$n" in
{"".join(f'      cudnn.py:{r}) printf "{cudnn[r]}";;{chr(10)}' for r in cudnn)}\
{"".join(f'      varlen_peers.py:{r}) printf "{varlen[r]}";;{chr(10)}' for r in varlen)}\
    esac;;
  *) exec "{sys.executable}" "$@";;
esac
""")
    os.chmod(shim / "python3", 0o755)
    (pack / "varlen_peers.py").write_text("# replaced by the shim\n")
    return pack, shim, log


@pytest.mark.parametrize("seed,rounds", [(3, 3), (11, 2)])
def test_rounds_alternate_and_the_table_gives_medians_and_worst_ratios(tmp_path, seed, rounds):
    rates = rates_for(seed, rounds)
    pack, shim, log = fake_pack(tmp_path, rates)
    out = tmp_path / "out"
    env = dict(os.environ, OUT=str(out), FT_ROUNDS=str(rounds), PATH=f"{shim}:{os.environ['PATH']}")
    run = subprocess.run(["bash", str(pack / "frontier-table.sh")], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    # saw first in odd rounds, the peers first in even ones; the ragged peers take FLOPs from round 1's results
    order = []
    for line in log.read_text().splitlines():
        who, what = line.split()[0], line.split()[1]
        step = ("saw", what.split("/")[0]) if who == "saw" else ("peers", what)
        if not order or order[-1] != step:
            order.append(step)
        if who == "varlen_peers.py":
            assert line.split()[-1].endswith("frontier/r1/results")
    expected = []
    for r in range(1, rounds + 1):
        pair = [("saw", f"r{r}"), ("peers", f"r{r}")]
        expected += pair if r % 2 else pair[::-1]
    assert order == expected
    table = (out / "frontier" / "table.txt").read_text().splitlines()
    assert table == frontier_table.table(frontier_table.load(str(out / "frontier")))
    lines = {tuple(t.split()[:2]): t.split() for t in table[1:]}
    assert len(lines) == 20
    for row in DENSE + [x + "-d128" for x in RAGGED]:
        for ps in ("fwd", "bwd"):
            saw = [rates[(r, "saw", row, ps)] for r in range(1, rounds + 1)]
            peer = [rates[(r, "peer", row, ps)] for r in range(1, rounds + 1)]
            # the ragged rows' faster peer: varlen_attn forward, cuDNN-NJT backward
            name = "cuDNN" if row in DENSE else "varlen_attn" if ps == "fwd" else "cuDNN-NJT"
            q = [s / p for s, p in zip(saw, peer)]
            cells = lines[(row, ps)]
            assert float(cells[2]) == pytest.approx(statistics.median(saw), abs=0.051)
            assert cells[3] == f"{min(saw):.1f}-{max(saw):.1f}"
            assert float(cells[4]) == pytest.approx(statistics.median(peer), abs=0.051)
            assert float(cells[6]) == pytest.approx(statistics.median(q), abs=5e-4)
            assert float(cells[7]) == pytest.approx(min(q), abs=5e-4)
            assert cells[8] == str(rounds)
            assert cells[9] == f"{name};" and cells[10] == f"k-{ps}"


def test_rows_without_a_peer_or_a_round_are_shown_as_such(tmp_path):
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    for r in (r1, r2):
        os.makedirs(r / "results")
    (r1 / "results" / "causal-8k-d128.jsonl").write_text(
        '{"schema":"saw.bench/1"}\n'
        '{"status":"ok","pass":"fwd","median_ms":1,"useful_tflops":600.0,"kernel":"kf"}\n'
        '{"status":"failed","pass":"bwd","median_ms":1,"useful_tflops":1.0,"kernel":"kb"}\n')
    (r2 / "results" / "causal-8k-d128.jsonl").write_text(
        '{"status":"ok","pass":"fwd","median_ms":1,"useful_tflops":500.0,"kernel":"kf"}\n')
    (r1 / "cudnn.txt").write_text("causal-8k-d128 fwd 1.0 550.0 bwd 1.0 500.0\ncausal-8k-d64 failed: out of memory\n")
    lines = frontier_table.table(frontier_table.load(str(tmp_path)))
    assert len(lines) == 2
    cells = lines[1].split()
    # round 2 had no peer: saw's median covers both rounds, the ratio only round 1
    assert cells[:5] == ["causal-8k-d128", "fwd", "550.0", "500.0-600.0", "550.0"]
    assert cells[6:9] == [f"{600 / 550:.3f}", f"{600 / 550:.3f}", "1"]


def test_random_rows_run_after_saws_rows_and_their_table_pairs_each_with_its_causal_problem(tmp_path):
    rounds, rng = 3, random.Random(5)
    pack, shim, log = fake_pack(tmp_path, rates_for(5, rounds))
    rates = {}  # "rN/random/FILE|DENSITY|PASS" -> useful TFLOP/s
    for r in range(1, rounds + 1):
        for seq, density, cseq, cbatch in frontier_table.RANDOM_PAIRS:
            for ps in ("fwd", "bwd"):
                rates[f"r{r}/random/random-{seq}.jsonl|{density:g}|{ps}"] = round(rng.uniform(300, 650), 1)
                rates[f"r{r}/random/causal-{cseq}-b{cbatch}.jsonl|None|{ps}"] = round(rng.uniform(300, 650), 1)
    (tmp_path / "rates.json").write_text(json.dumps(rates))
    # saw's rows as in fake_pack are left out here: this `saw` answers only the random rows and their causal pairs
    (pack / "saw").write_text(f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
opt = lambda name: args[args.index(name) + 1] if name in args else None
out = opt("--out")
key = out.split("/frontier/")[1]
with open({str(log)!r}, "a") as f:
    f.write(f"saw {{key}} {{' '.join(args)}}\\n")
rates = json.load(open({str(tmp_path / "rates.json")!r}))
with open(out, "w") as f:
    f.write('{{"schema":"saw.bench/1"}}\\n')
    for d in opt("--density").split(",") if opt("--density") else [None]:
        for ps in ("fwd", "bwd"):
            if f"{{key}}|{{d}}|{{ps}}" in rates:
                f.write(json.dumps({{"status": "ok", "pass": ps, "median_ms": 1.0, "kernel": "k",
                                     "useful_tflops": rates[f"{{key}}|{{d}}|{{ps}}"],
                                     "density": float(d) if d else None}}) + "\\n")
""")
    out = tmp_path / "out"
    env = dict(os.environ, OUT=str(out), FT_ROUNDS=str(rounds), FT_RANDOM="1", PATH=f"{shim}:{os.environ['PATH']}")
    run = subprocess.run(["bash", str(pack / "frontier-table.sh")], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    saw_calls = [line.split() for line in log.read_text().splitlines() if line.startswith("saw ")]
    for r in range(1, rounds + 1):
        keys = [c[1] for c in saw_calls if c[1].startswith(f"r{r}/")]
        first_random = next(i for i, k in enumerate(keys) if "/random/" in k)
        assert all("/random/" in k for k in keys[first_random:])  # after every one of saw's own rows
        assert sorted(k for k in keys if "/random/" in k) == sorted(
            {f"r{r}/random/random-{s}.jsonl" for s, _, _, _ in frontier_table.RANDOM_PAIRS}
            | {f"r{r}/random/causal-{cs}-b{cb}.jsonl" for _, _, cs, cb in frontier_table.RANDOM_PAIRS})
    for c in saw_calls:
        if "/random/random-" in c[1]:
            assert c[c.index("--density") + 1] == "0.05,0.1,0.25,0.5,1"
            assert c[c.index("--seq") + 1] == c[1].split("random-")[1][: -len(".jsonl")]
    text = (out / "frontier" / "table.txt").read_text()
    lines = frontier_table.random_table(str(out / "frontier"))
    assert text.endswith("\n\n" + "\n".join(lines) + "\n")
    assert len(lines) == 1 + 2 * len(frontier_table.RANDOM_PAIRS)
    body = iter(lines[1:])
    for seq, density, cseq, cbatch in frontier_table.RANDOM_PAIRS:
        for ps in ("fwd", "bwd"):
            cells = next(body).split()
            rnd = [rates[f"r{r}/random/random-{seq}.jsonl|{density:g}|{ps}"] for r in range(1, rounds + 1)]
            causal = [rates[f"r{r}/random/causal-{cseq}-b{cbatch}.jsonl|None|{ps}"] for r in range(1, rounds + 1)]
            q = [a / b for a, b in zip(rnd, causal)]
            assert cells[:3] == [f"{seq // 1024}K", f"{density:g}", ps]
            assert float(cells[3]) == pytest.approx(statistics.median(rnd), abs=0.051)
            assert cells[4] == f"{min(rnd):.1f}-{max(rnd):.1f}"
            assert cells[5:8] == [str(cseq), "x", str(cbatch)]
            assert float(cells[8]) == pytest.approx(statistics.median(causal), abs=0.051)
            assert float(cells[10]) == pytest.approx(statistics.median(q), abs=5e-4)
            assert float(cells[11]) == pytest.approx(min(q), abs=5e-4)
            assert cells[12] == str(rounds)
            assert (cells[13:] == ["below", "0.85"]) == (min(q) < 0.85)
