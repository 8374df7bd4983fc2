#!/usr/bin/env bash
# session 10, call 6 (pack at branch nsa-wgmma-fwd): the NSA per-block forward with warpgroup MMA checked (nsa-run.sh's
# quick verify matrix with the family on auto, memcheck + racecheck, at the same time) and timed against the mma.sync
# per-block forward, the warp order and fla at G = 16, 4, 8 and the headline shape; about 200 s
set -uo pipefail
root=$PWD
pack=$root/.nsapack
res=$OUT/j6
mkdir -p "$res"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
mkdir -p /tmp/site && python3 -m pip install --no-deps --target /tmp/site -q "$root"/.whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
el "verify (quick) and sanitizers"
( OUT=$res/v NSA_PARTS="verify" NSA_VERIFY=quick timeout -k 5 90 bash "$pack/nsa-run.sh" > "$res/verify.txt" 2>&1 ) &
( OUT=$res/s NSA_PARTS="sanitizer" NSA_SAN_TOOLS="memcheck racecheck" timeout -k 5 90 bash "$pack/nsa-run.sh" > "$res/san.txt" 2>&1 ) &
wait
grep -A20 "== summary" "$res/verify.txt" | head -22
grep -A12 "== summary" "$res/san.txt"
grep -B2 -A12 "FAIL" "$res/v/nsa/verify.log" | head -40
el "compare"
OUT=$res/c NSA_PARTS="compare" NSA_COMPARE_ORDERS="warp block" NSA_FAMILIES="wgmma mma" NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,32768,16,4,128,64,16;1,32768,32,4,128,64,16;1,65536,64,4,128,64,16" \
  NSA_COMPARE_SECONDS=100 NSA_COMPARE_TIMEOUT=130 timeout -k 5 135 bash "$pack/nsa-run.sh" > "$res/compare.txt" 2>&1
grep -A14 "== summary" "$res/compare.txt"
grep "^nsa " "$res/c/nsa/compare.log" | head -30
el done
