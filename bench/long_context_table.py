#!/usr/bin/env python3
"""saw against FlexAttention at long context (issue 18): one line per mask and size from the saw.bench/1 files that
bench/gpu/long-context.sh writes (saw's bench-MASK-N.json, compare_flex.py's flex/flex-bench-MASK-N.json).

Usage: long_context_table.py OUT_DIR   (the long-context folder). Columns are useful TFLOP/s: saw and Flex forward,
their ratio, saw and Flex forward+backward (both passes' FLOPs over both medians), their ratio, saw's forward and
forward+backward against its own 256K row, and why a Flex row has no time (its error, OOM, or skipped) in one
sentence. Worst saw/Flex fwd+bwd ratio first; masks Flex did not run come last.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_flex import read_results, tflops  # noqa: E402  (stdlib-only at import)

BASE = 262144
TARGET = 1.2


def collect(out):
    """({(mask, tokens): {"saw": {pass: row}, "flex": {pass: row}}}, {"saw"/"flex": a header}) from OUT's files."""
    cells, headers = {}, {}
    for path in glob.glob(os.path.join(out, "bench-*.json")) + glob.glob(os.path.join(out, "flex", "flex-bench-*.json")):
        m = re.match(r"(?:flex-)?bench-(.+)-(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        who = "flex" if os.path.basename(path).startswith("flex-") else "saw"
        try:
            header, rows = read_results(path)
        except SystemExit as e:  # an empty or cut file: the table says so instead of stopping
            print(f"note: {e}", file=sys.stderr)
            continue
        headers.setdefault(who, header)
        cell = cells.setdefault((m.group(1), int(m.group(2))), {"saw": {}, "flex": {}})
        for r in rows:
            if r.get("pass") in ("fwd", "bwd") and (who == "saw" or r.get("backend") == "flexattention"):
                cell[who][r["pass"]] = r
    return cells, headers


def ok_passes(by_pass):
    return {p: r for p, r in by_pass.items() if r.get("status") == "ok" and r.get("median_ms")}


def why_not(by_pass):
    """The first sentence of the first non-ok status of a side (fwd before bwd), or ''."""
    for p in ("fwd", "bwd"):
        r = by_pass.get(p)
        if r and r.get("status") != "ok":
            text = r.get("status", "")
            cut = re.search(r"(?<=[.!?])\s", text)
            return f"{p}: " + (text[:cut.start()] if cut else text)[:110]
    return ""


def lines(cells):
    """Table lines as tuples, worst saw/Flex fwd+bwd ratio first."""
    out = []
    for (mask, n), cell in cells.items():
        saw, flex = ok_passes(cell["saw"]), ok_passes(cell["flex"])
        base = ok_passes(cells.get((mask, BASE), {"saw": {}})["saw"])
        sf, sfb = tflops(saw, "fwd"), tflops(saw, "fwd+bwd")
        ff, ffb = tflops(flex, "fwd"), tflops(flex, "fwd+bwd")
        bf, bfb = tflops(base, "fwd"), tflops(base, "fwd+bwd")
        ratio = lambda a, b: a / b if a and b else None
        note = why_not(cell["flex"]) or ("no Flex row (not asked, or see flex.log)" if not cell["flex"] else "")
        out.append((mask, n, sf, ff, ratio(sf, ff), sfb, ffb, ratio(sfb, ffb), ratio(sf, bf), ratio(sfb, bfb), note))
    out.sort(key=lambda x: (x[7] is None, x[7] if x[7] is not None else 0, x[0], x[1]))
    return out


def built_by_create_block_mask(cells):
    """(mask, tokens) of the cells whose Flex rows built their BlockMask with create_block_mask: saw bench named the
    mask config instead of exporting the layout (the file would pass 2 GB)."""
    return sorted(key for key, cell in cells.items()
                  if any(str(r.get("layout", "")).endswith(".config.json") for r in cell["flex"].values()))


def render(rows, fwd_with_grad=False, created=()):
    f = lambda x, spec="8.1f": format(x, spec) if x is not None else format("-", ">" + spec.split(".")[0])
    text = [f"{'mask':<8} {'tokens':>8} {'saw fwd':>8} {'flex fwd':>8} {'ratio':>6} {'saw f+b':>8} {'flex f+b':>8} "
            f"{'ratio':>6} {'saw fwd':>8} {'saw f+b':>8}  flex status",
            f"{'':<8} {'':>8} {'TFLOP/s':>8} {'TFLOP/s':>8} {'':>6} {'TFLOP/s':>8} {'TFLOP/s':>8} {'':>6} "
            f"{'vs256K':>8} {'vs256K':>8}"]
    for mask, n, sf, ff, rf, sfb, ffb, rfb, vf, vfb, note in rows:
        text.append(f"{mask:<8} {n:>8} {f(sf)} {f(ff)} {f(rf, '6.2f')} {f(sfb)} {f(ffb)} {f(rfb, '6.2f')} "
                    f"{f(vf, '8.2f')} {f(vfb, '8.2f')}  {note}")
    met = [r for r in rows if r[7] is not None]
    if met:
        worst = min(met, key=lambda r: r[7])
        text.append(f"saw/Flex fwd+bwd: worst {worst[7]:.2f} ({worst[0]} {worst[1]}), target {TARGET}; "
                    f"{sum(1 for r in met if r[7] >= TARGET)} of {len(met)} rows at or above it")
    made = ("; at " + ", ".join(f"{m} {n}" for m, n in created) + " (no export past 2 GB) create_block_mask over the "
            "closed-form mask_mod, compiled") if created else ""
    text.append("Flex = torch.compile(flex_attention) default mode, BlockMask from saw's export (from_kv_blocks, one for "
                "all heads)" + made + ", enable_gqa; max-autotune not run at long context (its compile does not fit the "
                "device budget)" + ("; Flex fwd is timed as the training forward (inputs require grad, so the backward "
                                     "reuses its compile)" if fwd_with_grad else ""))
    return "\n".join(text)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: long_context_table.py OUT_DIR")
    cells, headers = collect(sys.argv[1])
    saw, flex = headers.get("saw", {}), headers.get("flex", {})
    print(f"saw {saw.get('saw_version', '?')} commit {saw.get('git_commit', '?')} on {saw.get('device', '?')}; "
          f"torch {flex.get('torch', '-')}; {flex.get('command', 'no compare_flex.py run')}")
    grad = any(r.get("fwd_with_grad") for c in cells.values() for r in c["flex"].values())
    print(render(lines(cells), fwd_with_grad=grad, created=built_by_create_block_mask(cells)))


if __name__ == "__main__":
    main()
