"""Issue 12's side-by-side table from frontier-table.sh's rounds.

Each round folder rN/ holds saw's results (results/ROW-dD.jsonl, `saw bench` output), cuDNN's timings (cudnn.txt:
"ROW-dD fwd MS TFLOPS bwd MS TFLOPS") and the ragged-batch peers' (varlen.txt: "ROW PEER fwd MS TFLOPS bwd MS TFLOPS",
D = 128). A row's ratio is taken within one round, where saw and its peer ran back to back; the table gives each row
and pass the medians over the rounds, the range of saw's and the peer's rates, and the median and worst ratio, because
one run on these GPUs moves by several percent with nothing changed.

    python3 frontier_table.py FRONTIER_DIR
"""

import glob
import json
import os
import re
import statistics
import sys

ROUND = re.compile(r"r(\d+)$")
PASSES = ("fwd", "bwd")


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


def saw_rates(results_dir):
    """{(row, pass): (useful TFLOP/s, kernel)} from saw's result files; failed points are left out."""
    out = {}
    for path in glob.glob(os.path.join(results_dir, "*.jsonl")):
        row = os.path.basename(path)[: -len(".jsonl")]
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if not line:
                continue
            point = json.loads(line)
            if "median_ms" in point and point.get("status", "ok") == "ok" and point.get("pass") in PASSES:
                out[(row, point["pass"])] = (point["useful_tflops"], point.get("kernel", "-"))
    return out


def load(frontier_dir):
    """{round: (saw rates, peer rates)} from the folder's rN/ subfolders."""
    rounds = {}
    for sub in glob.glob(os.path.join(frontier_dir, "r*")):
        m = ROUND.match(os.path.basename(sub))
        if m and os.path.isdir(sub):
            rounds[int(m.group(1))] = (saw_rates(os.path.join(sub, "results")),
                                       peer_rates(os.path.join(sub, "cudnn.txt"), os.path.join(sub, "varlen.txt")))
    return rounds


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
    if len(sys.argv) != 2:
        sys.exit("usage: frontier_table.py FRONTIER_DIR")
    print("\n".join(table(load(sys.argv[1]))))
