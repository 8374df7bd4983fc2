"""Issue 12's side-by-side table from frontier-table.sh's rounds.

Each round folder rN/ holds saw's results (results/ROW-dD.jsonl, `saw bench` output), cuDNN's timings (cudnn.txt:
"ROW-dD fwd MS TFLOPS bwd MS TFLOPS") and the ragged-batch peers' (varlen.txt: "ROW PEER fwd MS TFLOPS bwd MS TFLOPS",
D = 128). A row's ratio is taken within one round, where saw and its peer ran back to back; the table gives each row
and pass the medians over the rounds, the range of saw's and the peer's rates, and the median and worst ratio, because
one run on these GPUs moves by several percent with nothing changed.

With FT_RANDOM=1 the rounds also hold random/: issue 12's random-block rows (random-S.jsonl) and, for each, a causal
problem of about the same tiles per row and total work (causal-SEQ-bBATCH.jsonl); a second table gives random / causal
within each round, its median and worst over the rounds, against the target of 0.85.

    python3 frontier_table.py FRONTIER_DIR
    python3 frontier_table.py --pairs        (the random rows' pairs, one "SEQ DENSITY CAUSAL_SEQ CAUSAL_BATCH" a line)
"""

import glob
import json
import os
import re
import statistics
import sys

ROUND = re.compile(r"r(\d+)$")
PASSES = ("fwd", "bwd")
CAUSAL_FILE = re.compile(r"causal-(\d+)-b(\d+)\.jsonl$")
RANDOM_FILE = re.compile(r"random-(\d+)\.jsonl$")
# Issue 12's random-block rows (B = 4, H = 16, D = 128, 128x128 blocks) as (seq, requested density, causal seq, causal
# batch): each against a causal problem whose rows list about as many tiles ((n + 1) / 2 for n = seq / 128) and whose
# batch gives about the same total work, the pairs of the tenth session's table in docs/benchmarks.md.
RANDOM_PAIRS = ((8192, 0.05, 640, 55), (8192, 0.1, 1536, 21), (8192, 0.25, 4096, 8), (8192, 0.5, 8192, 4),
                (8192, 1.0, 16384, 2), (16384, 0.05, 1536, 42), (16384, 0.1, 3200, 20), (16384, 0.25, 8192, 8),
                (16384, 0.5, 16384, 4), (16384, 1.0, 32768, 2))
RANDOM_TARGET = 0.85


def peer_rates(cudnn_txt, varlen_txt):
    """{(row, pass): (useful TFLOP/s, peer)}: the fastest peer of each row and pass (cuDNN on the dense rows, the
    ragged-batch peers on the documents and window rows); missing files give nothing."""
    best = {}

    def offer(row, tflops_fwd, tflops_bwd, name):
        for ps, t in zip(PASSES, (tflops_fwd, tflops_bwd)):
            if t > best.get((row, ps), (0.0, ""))[0]:
                best[(row, ps)] = (t, name)

    if os.path.exists(cudnn_txt):
        for line in open(cudnn_txt, encoding="utf-8"):
            p = line.split()
            if len(p) == 7 and p[1] == "fwd" and p[4] == "bwd":
                offer(p[0], float(p[3]), float(p[6]), "cuDNN")
    if os.path.exists(varlen_txt):
        for line in open(varlen_txt, encoding="utf-8"):
            p = line.split()
            if len(p) == 8 and p[2] == "fwd" and p[5] == "bwd":
                offer(p[0] + "-d128", float(p[4]), float(p[7]), p[1])
    return best


def timed_points(path):
    """The timed points of one `saw bench` results file that ran (the header and failed points left out)."""
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        point = json.loads(line)
        if "median_ms" in point and point.get("status", "ok") == "ok" and point.get("pass") in PASSES:
            yield point


def saw_rates(results_dir):
    """{(row, pass): (useful TFLOP/s, kernel)} from saw's result files; failed points are left out."""
    out = {}
    for path in glob.glob(os.path.join(results_dir, "*.jsonl")):
        row = os.path.basename(path)[: -len(".jsonl")]
        for point in timed_points(path):
            out[(row, point["pass"])] = (point["useful_tflops"], point.get("kernel", "-"))
    return out


def random_rates(random_dir):
    """{("random", seq, density, pass) or ("causal", seq, batch, pass): useful TFLOP/s} from one round's random/."""
    out = {}
    for path in glob.glob(os.path.join(random_dir, "*.jsonl")):
        name = os.path.basename(path)
        causal, rnd = CAUSAL_FILE.match(name), RANDOM_FILE.match(name)
        if not (causal or rnd):
            continue
        for point in timed_points(path):
            if causal:
                out[("causal", int(causal.group(1)), int(causal.group(2)), point["pass"])] = point["useful_tflops"]
            elif isinstance(point.get("density"), (int, float)):
                out[("random", int(rnd.group(1)), round(point["density"], 6), point["pass"])] = point["useful_tflops"]
    return out


def random_table(frontier_dir):
    """One line per random row and pass: its median rate over the rounds, its causal pair's, and the median and worst
    of the per-round ratios random / causal, marked where the worst is under RANDOM_TARGET; [] without random/ data."""
    rounds = [random_rates(os.path.join(sub, "random")) for _, sub in sorted(round_dirs(frontier_dir).items())]
    if not any(rounds):
        return []
    lines = [f"{'random row':17} {'pass':4} {'random':>7} {'range':>13} {'causal pair':>17} {'causal':>7} "
             f"{'range':>13} {'x':>6} {'worst':>6} {'rounds':>6}"]
    for seq, density, cseq, cbatch in RANDOM_PAIRS:
        for ps in PASSES:
            rk, ck = ("random", seq, round(density, 6), ps), ("causal", cseq, cbatch, ps)
            rnd = [r[rk] for r in rounds if rk in r]
            causal = [r[ck] for r in rounds if ck in r]
            ratios = [r[rk] / r[ck] for r in rounds if rk in r and ck in r and r[ck] > 0]
            x = f"{statistics.median(ratios):6.3f} {min(ratios):6.3f}" if ratios else f"{'-':>6} {'-':>6}"
            below = f"  below {RANDOM_TARGET}" if ratios and min(ratios) < RANDOM_TARGET else ""
            lines.append(f"{f'{seq // 1024}K {density:g}':17} {ps:4} {rate_cells(rnd)} "
                         f"{f'{cseq} x {cbatch}':>17} {rate_cells(causal)} {x} {len(ratios):>6}{below}")
    return lines


def round_dirs(frontier_dir):
    """{round number: its rN/ folder}."""
    subs = {}
    for sub in glob.glob(os.path.join(frontier_dir, "r*")):
        m = ROUND.match(os.path.basename(sub))
        if m and os.path.isdir(sub):
            subs[int(m.group(1))] = sub
    return subs


def load(frontier_dir):
    """{round: (saw rates, peer rates)} from the folder's rN/ subfolders."""
    return {r: (saw_rates(os.path.join(sub, "results")),
                peer_rates(os.path.join(sub, "cudnn.txt"), os.path.join(sub, "varlen.txt")))
            for r, sub in round_dirs(frontier_dir).items()}


def rate_cells(xs):
    """The median of a side's rates over the rounds and their range, or '-' where no round has it."""
    if not xs:
        return f"{'-':>7} {'':>13}"
    return f"{statistics.median(xs):7.1f} {f'{min(xs):.1f}-{max(xs):.1f}':>13}"


def table(rounds):
    """One line per row and pass: saw's median rate over the rounds and its range, the peer's, and the median and
    worst of the per-round ratios (rounds without both sides are left out of the ratios; '-' where none has both)."""
    keys = sorted(set().union(*(saw.keys() for saw, _ in rounds.values())) if rounds else set(),
                  key=lambda k: (k[0], PASSES.index(k[1])))
    lines = [f"{'row':22} {'pass':4} {'saw':>7} {'range':>13} {'peer':>7} {'range':>13} {'x':>6} {'worst':>6} "
             f"{'rounds':>6}  peer; saw kernel"]
    for key in keys:
        saw = [rounds[r][0][key][0] for r in sorted(rounds) if key in rounds[r][0]]
        peer = [rounds[r][1][key][0] for r in sorted(rounds) if key in rounds[r][1]]
        ratios = [rounds[r][0][key][0] / rounds[r][1][key][0] for r in sorted(rounds)
                  if key in rounds[r][0] and key in rounds[r][1] and rounds[r][1][key][0] > 0]
        names = sorted({rounds[r][1][key][1] for r in rounds if key in rounds[r][1]})
        kernels = sorted({rounds[r][0][key][1] for r in rounds if key in rounds[r][0]})
        x = f"{statistics.median(ratios):6.3f} {min(ratios):6.3f}" if ratios else f"{'-':>6} {'-':>6}"
        lines.append(f"{key[0]:22} {key[1]:4} {rate_cells(saw)} {rate_cells(peer)} {x} {len(ratios):>6}  "
                     f"{'/'.join(names) or '-'}; {'/'.join(kernels)}")
    return lines


if __name__ == "__main__":
    if sys.argv[1:] == ["--pairs"]:
        print("\n".join(f"{seq} {density:g} {cseq} {cbatch}" for seq, density, cseq, cbatch in RANDOM_PAIRS))
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.exit("usage: frontier_table.py FRONTIER_DIR | frontier_table.py --pairs")
    print("\n".join(table(load(sys.argv[1]))))
    extra = random_table(sys.argv[1])
    if extra:
        print("\n" + "\n".join(extra))
