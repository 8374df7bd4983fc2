"""The A/B table of a kernel experiment: `saw bench` results of two builds, timed in rounds on the same GPU.

Files are named TAG-ROW-rROUND.jsonl (bench/gpu/ab-lib.sh writes them); a row's ratio is taken only within one round,
where the two builds ran back to back, and each row prints every round's ratio, their range and median, because one
round on these GPUs moves by several percent with no change at all.

    python3 ab_table.py DIR [BASE_TAG OTHER_TAG]      (default A B)
    python3 ab_table.py --summary DIR BASE_TAG OTHER_TAG...
                                                    one line per row and pass: each other build's median ratio to
                                                    the base and, in brackets, its worst and best round
"""

import glob
import json
import os
import re
import statistics
import sys

NAME = re.compile(r"([A-Za-z0-9]+)-(.+)-r(\d+)\.jsonl$")


def load(folder):
    """{(row, pass): {round: {tag: useful TFLOP/s}}} from the folder's result files; failed points are left out."""
    runs = {}
    for path in glob.glob(os.path.join(folder, "*.jsonl")):
        m = NAME.match(os.path.basename(path))
        if not m:
            continue
        tag, row, rnd = m.group(1), m.group(2), int(m.group(3))
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                point = json.loads(line)
                if point.get("status", "ok") != "ok" or point.get("pass") not in ("fwd", "bwd"):
                    continue
                runs.setdefault((row, point["pass"]), {}).setdefault(rnd, {})[tag] = point["useful_tflops"]
    return runs


def ratios(runs, base="A", other="B"):
    """{(row, pass): [(round, base rate, other rate, other / base)]} over the rounds that timed both builds."""
    out = {}
    for key, rounds in runs.items():
        pairs = [(r, x[base], x[other], x[other] / x[base]) for r, x in sorted(rounds.items())
                 if base in x and other in x and x[base] > 0]
        if pairs:
            out[key] = pairs
    return out


def table(runs, base="A", other="B"):
    lines = [f"{'row':22} {'pass':4} {'round':>5} {base:>8} {other:>8} {other + '/' + base:>7}"]
    for key, pairs in sorted(ratios(runs, base, other).items()):
        for r, a, b, q in pairs:
            lines.append(f"{key[0]:22} {key[1]:4} {r:>5} {a:8.1f} {b:8.1f} {q:7.3f}")
        qs = [q for *_, q in pairs]
        lines.append(f"{key[0]:22} {key[1]:4} {'all':>5} {'':8} {'':8} {min(qs):.3f}-{max(qs):.3f}, median "
                     f"{statistics.median(qs):.3f}")
    return lines


def summary(runs, base, others):
    """One line per (row, pass): for each other build the median of its per-round ratios to the base and their
    range; '-' where no round timed both."""
    per = {o: ratios(runs, base, o) for o in others}
    keys = sorted(set().union(*(p.keys() for p in per.values()))) if per else []
    width = 22
    lines = [f"{'row':22} {'pass':4} " + " ".join(f"{o + '/' + base:>{width}}" for o in others)]
    for key in keys:
        cells = []
        for o in others:
            qs = [q for *_, q in per[o].get(key, [])]
            cells.append(f"{statistics.median(qs):.3f} ({min(qs):.3f}-{max(qs):.3f})" if qs else "-")
        lines.append(f"{key[0]:22} {key[1]:4} " + " ".join(f"{c:>{width}}" for c in cells))
    return lines


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--summary":
        print("\n".join(summary(load(sys.argv[2]), sys.argv[3], sys.argv[4:])))
    elif len(sys.argv) in (2, 4):
        tags = sys.argv[2:] or ["A", "B"]
        print("\n".join(table(load(sys.argv[1]), *tags)))
    else:
        sys.exit(__doc__)
