#!/usr/bin/env bash
# session 4, call 3: D=256 128-row forward checks + timing (d256-fwd128.sh), then run-matrix.sh (verify matrix +
# sanitizers) on the final backward (fc36d3a's kernels) and the merged main
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/d4
mkdir -p "$res"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
el "d256-fwd128"
OUT=$res timeout 150 bash "$pack/d256-fwd128.sh" > "$res/d256-fwd128.txt" 2>&1
el "d256-fwd128 rc=$?"
tail -32 "$res/d256-fwd128.txt"
el "run-matrix"
OUT=$res timeout 240 bash "$pack/run-matrix.sh" > "$res/run-matrix.txt" 2>&1
el "run-matrix rc=$?"
tail -14 "$res/run-matrix.txt"
el "done"
