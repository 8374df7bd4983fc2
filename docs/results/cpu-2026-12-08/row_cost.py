#!/usr/bin/env python3
"""Issue 12's short-row targets against a row-and-tile cost model (forty-ninth session, no device).

time x SMs = a x rows + b x tiles, fitted (least squares on relative error) to the forty-eighth session's four-round
medians of issue 12's D = 128 rows (H100, docs/results/gpu-2026-12-07k/), forward (a per q row) and backward (a per kv
column) apart; tile and row counts from `saw stats` on the rows' own specs (bench/gpu/specs-lib.sh). For each row it
prints the model, the measurement, the rate at a row cost of 0 (the tiles alone at the fitted tile cost) and the row
cost that would reach the target at that tile cost (negative: none does). Then the useful / computed FLOP ratio of
the two documents rows under smaller tiles. Usage: row_cost.py SAW_JAR SPECS_DIR (needs numpy)."""
import json
import subprocess
import sys

import numpy as np

SMS = 132
# name: (measured fwd, measured bwd, target fwd, target bwd), useful TFLOP/s
ROWS = {
    "causal-8k": (643.3, 488.4, 650, 540),
    "causal-16k": (616.2, 493.4, 650, 540),
    "gqa-32k": (611.4, 490.0, 650, 540),
    "docs64-32k": (266.9, 182.3, 400, 330),
    "docs8-8k": (388.2, 272.4, 500, 400),
    "docs8-16k": (503.2, 372.2, 500, 400),
    "window1024-16k": (513.2, 365.6, 500, 400),
}


def stats(jar, spec, block):
    out = subprocess.run(["java", "-jar", jar, "stats", spec, "--block", block], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def main(jar, specs):
    counts = []
    for name in ROWS:
        spec = f"{specs}/{name}.json"
        with open(spec) as f:
            s = json.load(f)
        st = stats(jar, spec, "128x128")
        tiles = st["tiles"]["partial"] + st["tiles"]["full"]
        rows = st["num_q_blocks"] * s["batch"] * s["heads"]  # every q row and kv column of these masks has a tile
        counts.append((name, rows, tiles, st["attended_pairs"]))
    x = np.array([[r, t] for _, r, t, _ in counts], dtype=float) / SMS
    for pas, col, work in (("forward", 0, 1.0), ("backward", 1, 2.5)):
        us = np.array([work * 512 * p / ROWS[n][col] / 1e6 for n, _, _, p in counts])  # measured time, us
        (a, b), *_ = np.linalg.lstsq(x / us[:, None], np.ones(len(us)), rcond=None)
        unit = "row" if pas == "forward" else "column"
        print(f"{pas}: a = {a:.2f} us a {unit}, b = {b:.3f} us a tile (a = {a / b:.2f} tiles)")
        print(f"  {'row':15s} {'useful/computed':>15s} {'tiles/' + unit:>12s} {'model':>7s} {'meas':>7s} "
              f"{'at 0':>7s} {'target':>7s}  {unit} cost for the target")
        for (n, r, t, p), m in zip(counts, us):
            useful = work * 512 * p
            model = useful / ((a * r + b * t) / SMS) / 1e6
            zero = useful / (b * t / SMS) / 1e6
            target = ROWS[n][2 + col]
            need = (useful / target / 1e6 * SMS - b * t) / r
            print(f"  {n:15s} {p / (t * 128 * 128):15.3f} {t / r:12.2f} {model:7.1f} {ROWS[n][col]:7.1f} {zero:7.1f}"
                  f" {target:7d}  {need:6.2f} us")
    for name in ("docs64-32k", "docs8-8k"):
        fr = []
        for block in ("128x128", "64x64", "128x64", "64x128"):
            st = stats(jar, f"{specs}/{name}.json", block)
            t = st["tiles"]["partial"] + st["tiles"]["full"]
            fr.append(f"{block} {st['attended_pairs'] / (t * st['block_q'] * st['block_kv']):.3f}")
        print(f"{name}: useful / computed by tile: " + ", ".join(fr))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
