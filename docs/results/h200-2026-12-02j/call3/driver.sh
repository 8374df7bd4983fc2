#!/usr/bin/env bash
# session 10, call 3 (pack at branch nsa-wgmma-b128): (a) the NSA warpgroup backward at block 128 (and 64 again)
# checked (nsa-run.sh verify matrix and sanitizers, at the same time) and timed against the chunked backward and fla at
# block 128, plus the headline shape again; (b) issue 12's random-block rows against causal rows with the same tiles per
# row (and about the same total work), forward and backward, D = 128, default kernels
set -uo pipefail
root=$PWD
pack=$root/.nsapack
res=$OUT/j3
mkdir -p "$res/dens"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
mkdir -p /tmp/site && python3 -m pip install --no-deps --target /tmp/site -q "$root"/.whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
el "verify and sanitizers (at the same time)"
( OUT=$res/v NSA_PARTS="verify" timeout -k 5 220 bash "$pack/nsa-run.sh" > "$res/verify.txt" 2>&1 ) &
( OUT=$res/s NSA_PARTS="sanitizer" NSA_SAN_TOOLS="memcheck racecheck synccheck" timeout -k 5 220 bash "$pack/nsa-run.sh" > "$res/san.txt" 2>&1 ) &
wait
grep -A40 "== summary" "$res/verify.txt" | head -45
grep -A20 "== summary" "$res/san.txt"
grep -B2 -A12 "FAIL" "$res/v/nsa/verify.log" | head -40
el "random blocks against causal rows of the same tiles per row"
b() { # TAG ARGS...
  local tag=$1; shift
  SAW_JAVA_OPTS=-Xmx24g timeout 100 "$pack/saw" bench preset:causal "$@" --heads 16 --head-dim 128 --dtype bf16 \
    --block 128x128 --pass fwd,bwd --backend gpu --reps 10 --warmup 3 --out "$res/dens/$tag.jsonl" >> "$res/dens/bench.log" 2>&1
  echo "bench $tag rc=$?"
}
b random-8k --seq 8192 --batch 4 --density 0.05,0.1,0.25,0.5,1
b random-16k --seq 16384 --batch 4 --density 0.05,0.1,0.25,0.5,1
b causal-640 --seq 640 --batch 55
b causal-1536 --seq 1536 --batch 21
b causal-3200 --seq 3200 --batch 20
b causal-4096 --seq 4096 --batch 8
b causal-8192 --seq 8192 --batch 4
b causal-16384 --seq 16384 --batch 2
b causal-1536b --seq 1536 --batch 42
b causal-8192b --seq 8192 --batch 8
b causal-16384b --seq 16384 --batch 4
b causal-32768 --seq 32768 --batch 2
python3 - "$res/dens" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if r.get("status") != "ok": continue
        key = (os.path.basename(f)[:-6], r.get("block_density"), r["pass"])
        rows[key] = r
for k, r in sorted(rows.items(), key=lambda kv: (kv[0][0], str(kv[0][1]), kv[0][2])):
    print(k[0], "density", k[1], k[2], f"{r['median_ms']:.3f} ms", f"{r['useful_tflops']:.1f} TF/s", r.get("kernel"),
          {x: r.get(x) for x in ("seq_q", "batch", "block_density", "token_density", "tiles_full", "tiles_partial") if x in r})
PY
el "NSA block 128 and the headline shape against fla"
OUT=$res/c NSA_PARTS="compare" NSA_COMPARE_ORDERS=warp NSA_BWD_KERNELS="wgmma mma" NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,32768,64,4,128,128,8;1,65536,64,4,128,128,8;1,32768,64,4,64,128,8;1,65536,64,4,128,64,16;1,32768,32,4,128,128,8" \
  NSA_COMPARE_SECONDS=150 NSA_COMPARE_TIMEOUT=200 timeout -k 5 210 bash "$pack/nsa-run.sh" > "$res/compare.txt" 2>&1
grep -A30 "== summary" "$res/compare.txt"
el done
