#!/usr/bin/env bash
# Prepared in the forty-third session, not run (its device time was spent): where a short row's time goes now that
# every timed run starts after the 256 MiB fill (kernel notes, the short rows' lead: the thirteenth session's fit of
# 2.5-2.7 tile times a row was made when each pass also carried 70-120 us of launch and idle GPU). Main's build
# (walkvote.fatbin, sha256 73d563d6..., and var/engine.jar, sha256 b40712b9...), D = 128 and 64, 128x128, default
# families, forward and backward, three rounds:
#  1. chunked(C) causal at 16K, B = 4, H = 16 (rows of 1 .. C / 128 tiles; C = 128 .. 2048) and causal 16K, with each
#     pass's compulsory bytes (`bytes`, saw bench's fa2-stream model) beside its time: C = 128 moves 128 KiB a row for
#     one tile, so it may be bound by HBM rather than by a row's fixed cost; the table says which;
#  2. issue 12's short rows (64 documents in 32K, 8 documents in 8K) in the same rounds;
#  3. the fit of time = a * rows + b * tiles per SM over the chunked rows and causal (a: a row's fixed cost, b: a
#     tile's), per pass and head dim, printed with its residuals;
#  4. Nsight Compute (full set, one launch) of the 64-documents forward and backward at D = 128.
# Added in the forty-fourth session before it ran (its call 4): 5. every kernel's duration in one backward sequence
#  (Nsight Compute, gpu__time_duration only) of window 1024, 8 documents in 16K, causal 8K and 64 documents at
#  D = 128: what the launches around the main kernel (Dsum, the dQ conversion) cost on each row.
# Carry .gpupack (var/walk.tar.xz, var/engine.jar). Where they are gone: walkvote.fatbin is main's sm_90a build
# (cd engine/src/main/cuda && nvcc -O3 -std=c++17 -lineinfo -fatbin -no-compress -gencode=arch=compute_90a,code=sm_90a
# -o walkvote.fatbin saw_attention.cu; tar cf - walkvote.fatbin | xz > var/walk.tar.xz) and var/engine.jar main's
# engine jar (mvn -o -pl presets,engine package -DskipTests) with its fatbin entry emptied; the hashes above then differ.
#   CALL_BUDGET=400 bash docs/results/gpu-2026-12-07f/next-not-run/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init rows
left() { echo $(( ${CALL_BUDGET:-400} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/walk.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin .gpupack/var/engine.jar
ab_pack /tmp/pm /tmp/walkvote.fatbin main "$ab_root/.gpupack/var/engine.jar"
. bench/gpu/specs-lib.sh
frontier_specs "$ab_res/specs"
for c in 128 256 512 1024 2048; do
  mask_spec "$ab_res/specs" "chunked$c-16k" 16384 4 16 "{ \"chunked_causal\": { \"chunk\": $c } }"
done
rows=(chunked128-16k chunked256-16k chunked512-16k chunked1024-16k chunked2048-16k causal-16k docs64-32k docs8-8k)
for r in 1 2 3; do
  ab_el "round $r"
  for sp in "${rows[@]}"; do
    for d in 128 64; do
      timeout -k 5 100 /tmp/pm/saw bench "$ab_res/specs/$sp.json" --block 128x128 --head-dim "$d" --pass fwd,bwd \
        --reps 10 --warmup 3 --backend gpu --out "$ab_res/ab/$sp-d$d-r$r.jsonl" >>"$ab_res/ab/bench.log" 2>&1 \
        || echo "bench $sp D=$d r$r rc=$?"
    done
  done
  ab_save
  (( $(left) > 200 )) || { ab_el "stopping after round $r"; break; }
done
python3 - "$ab_res/ab" <<'PY' | tee "$ab_res/rows.txt"
# per row, head dim and pass: median ms over the rounds, useful and computed TFLOP/s, the compulsory bytes' rate;
# then the least-squares fit of the chunked rows' time per SM as a * rows + b * tiles (+ c) and its residuals
import glob, json, os, re, statistics, sys
import numpy as np
pts = {}
for f in glob.glob(sys.argv[1] + "/*-r*.jsonl"):
    m = re.match(r"(.+)-d(\d+)-r\d+\.jsonl$", os.path.basename(f))
    for line in open(f):
        p = json.loads(line)
        if p.get("status") == "ok" and p.get("pass") in ("fwd", "bwd") and "median_ms" in p:
            pts.setdefault((m.group(1), int(m.group(2)), p["pass"]), []).append(p)
SMS = 132
print(f"{'row':16} {'D':>3} {'pass':4} {'ms':>8} {'useful':>7} {'computed':>8} {'GB/s':>7} {'rows/SM':>8} {'tiles/SM':>8}")
fit = {}
for (row, d, ps), ps_pts in sorted(pts.items()):
    ms = statistics.median(p["median_ms"] for p in ps_pts)
    p = ps_pts[0]
    tiles = p["tiles_full"] + p["tiles_partial"]
    # rows of the forward: q tiles with at least one tile (every q tile of these masks); columns of the backward
    lines = p["batch"] * p["heads"] * (p["seq_q"] // p["block_q"])
    print(f"{row:16} {d:3} {ps:4} {ms:8.4f} {p['useful_flops'] / ms / 1e9:7.1f} {p['computed_flops'] / ms / 1e9:8.1f} "
          f"{p['bytes'] / ms / 1e6:7.0f} {lines / SMS:8.1f} {tiles / SMS:8.1f}")
    if row.startswith("chunked") or row == "causal-16k":
        fit.setdefault((d, ps), []).append((lines / SMS, tiles / SMS, ms * 1e3, row))
for (d, ps), xs in sorted(fit.items()):
    # every pass here has the same rows (8,192 q tiles), so a row's cost is the intercept: no separate per-pass term
    # (the fill keeps the launch out of the timed span)
    A = np.array([[r, t] for r, t, _, _ in xs]); y = np.array([us for _, _, us, _ in xs])
    (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
    print(f"fit D={d} {ps}: {a:.3f} us a row + {b:.3f} us a tile; a row = {a / b:.2f} tiles; residuals "
          + ", ".join(f"{row} {us - (a * r + b * t):+.1f}" for r, t, us, row in xs))
PY
for sp in window1024-16k docs8-16k causal-8k docs64-32k; do
  (( $(left) > 150 )) || break
  SAW_JAVA_OPTS=-Xmx24g timeout -k 5 60 ncu --clock-control none --target-processes all --metrics gpu__time_duration.sum \
    --csv --page raw /tmp/pm/saw bench "$ab_res/specs/$sp.json" --block 128x128 --head-dim 128 --pass bwd --reps 1 \
    --warmup 1 --backend gpu --out "$ab_res/split-$sp.jsonl" > "$ab_res/split-$sp.csv" 2>"$ab_res/split-$sp.err"
  echo "split $sp rc=$?"
  python3 - "$ab_res/split-$sp.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
head = rows[0]; k = head.index("Kernel Name"); t = head.index("gpu__time_duration.sum")
for r in rows[2:]:
    print(f"  {r[k][:60]:60} {r[t]:>12}")
PY
done
ab_save
if (( $(left) > 120 )); then
  ab_prof /tmp/pm docs64-fwd fwd_wgmma "" -- "$ab_res/specs/docs64-32k.json" --block 128x128 --head-dim 128 --pass fwd \
    --reps 1 --warmup 2 --backend gpu --out "$ab_res/prof-fwd.jsonl"
fi
if (( $(left) > 60 )); then
  ab_prof /tmp/pm docs64-bwd bwd_wgmma "" -- "$ab_res/specs/docs64-32k.json" --block 128x128 --head-dim 128 --pass bwd \
    --reps 1 --warmup 2 --backend gpu --out "$ab_res/prof-bwd.jsonl"
fi
ab_save
ab_el done
