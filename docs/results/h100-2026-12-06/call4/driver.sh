#!/usr/bin/env bash
# Call 4 (twenty-seventh session): how a backward's time splits over its launches (the dQ accumulator's fill is a
# driver memset, then the Dsum kernel, the main kernel, the dQ conversion), and branch dq-convert: the permuted dQ
# accumulator converted a thread per 16 values with 16-byte loads and stores and the head dim at compile time (main's
# bwd_dq_perm_* took a thread per pair with two 64-bit divisions each), and Dsum with D / 8 lanes a row and 16-byte
# loads (main: a warp a row, 4- or 8-byte loads). Builds: A = main bc66977 (du.fatbin of call 2),
# DC = dq-convert (dc.fatbin, its engine jar .gpupack/var/dc-engine.jar: the conversion's grid changes on the host).
# Carried: .gpupack with var/fatbins-07.tar.xz (main.fatbin of d441347, du.fatbin, dc.fatbin; sha256 beside this).
#   bash docs/results/h100-2026-12-06/call4/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c4
python3 -c "import tarfile; tarfile.open('.gpupack/var/fatbins-07.tar.xz').extractall('/tmp/fb')"
(cd /tmp/fb && sha256sum -c "$ab_root/docs/results/h100-2026-12-06/call4/fatbins.sha256") || echo "fatbins differ"
ab_pack /tmp/pa /tmp/fb/du.fatbin main-bc66977
ab_pack /tmp/pc /tmp/fb/dc.fatbin dq-convert .gpupack/var/dc-engine.jar
. bench/gpu/specs-lib.sh
frontier_specs /tmp/c4/specs
ab_el "1. each launch of one backward (Nsight Compute, duration only)"
for pack in pa pc; do
  for row in docs64-32k causal-16k; do
    timeout 120 ncu --clock-control none --target-processes all --metrics gpu__time_duration.sum --csv \
      /tmp/$pack/saw bench /tmp/c4/specs/$row.json --backend gpu --head-dim 128 --block 128x128 --pass bwd --reps 1 \
      --warmup 1 --out /tmp/c4/$pack-$row.jsonl > /tmp/c4/$pack-$row-ncu.csv 2> /tmp/c4/$pack-$row-ncu.err
    echo "$pack $row: ncu rc=$?"
    python3 - /tmp/c4/$pack-$row-ncu.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if rows:
    h = rows[0]; k = h.index("Kernel Name"); v = h.index("Metric Value"); u = h.index("Metric Unit")
    for r in rows[1:]:
        scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(r[u], float("nan"))
        print(f"  {r[k][:60]:60s} {float(r[v].replace(',', '')) * scale:10.1f} us")
PY
  done
done
ab_el "2. checks on dq-convert"
ab_checks /tmp/pc
ab_el "3. rounds"
AB_DEADLINE=${AB_DEADLINE:-300} ab_rounds 3 /tmp/pa A /tmp/pc DC docs64-32k-d128 docs8-8k-d128 docs8-16k-d128 \
  window1024-16k-d128 causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs64-32k-d64 causal-8k-d64
ab_save
ab_el done
