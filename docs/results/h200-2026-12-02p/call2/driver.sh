#!/usr/bin/env bash
# Session 16, call 2, on the real build of 290cd8b (.gpupack-p1):
#  A. Nsight Compute (full set, one launch, clock control off) of the D = 128 forward on short rows: 64 packed
#     documents in 32K (B = 1, H = 16) and 8 documents in 8K (B = 4, H = 16), with causal 8K beside them for the
#     per-tile rate; details and per-SASS source pages (warp stall samples).
#  B. NSA (issue 14) on the real build: nsa-run.sh with the full verify matrix, memcheck / racecheck / synccheck,
#     fla-core 0.5.2 side by side on the final shapes (call 1's attempt never started: its driver's bare `wait` also
#     waited for the `tee` of its own log).
set -uo pipefail
root=$PWD
pack=$root/.gpupack-p1
res=$OUT/p2
mkdir -p "$res/specs" "$res/prof"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
(mkdir -p /tmp/site && python3 -m pip install --no-deps --target /tmp/site -q "$root"/.whl/*.whl > "$res/pip.log" 2>&1) &
pip_pid=$!
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
el "A. profiles"
prof() { # SPEC EXTRA
  local name=$1; shift
  timeout -k 5 120 ncu --clock-control none --target-processes all -k regex:'^fwd_' --launch-skip 2 --launch-count 1 \
    --set full --import-source no -f -o "$res/prof/$name" \
    "$pack/saw" bench "$res/specs/$name.json" --backend gpu --dtype bf16 --head-dim 128 --block 128x128 --pass fwd --reps 1 \
    --warmup 2 --out "/tmp/ncu-$name.jsonl" "$@" > "$res/prof/$name.log" 2>&1
  echo "ncu $name rc=$?"
  ncu -i "$res/prof/$name.ncu-rep" --page details --print-details all > "$res/prof/$name-details.txt" 2>&1
  ncu -i "$res/prof/$name.ncu-rep" --page source --csv --print-source sass > "$res/prof/$name-source.csv" 2>&1
  gzip -f "$res/prof/$name-source.csv"
  grep -E "^  [a-z_]+.*\(|Duration|Elapsed Cycles|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Executed Ipc A|Warp Cycles Per Issued|Achieved Active Warps|No Eligible" "$res/prof/$name-details.txt" | head -14
}
prof docs64-32k
prof docs8-8k
prof causal-8k
el "B. NSA"
wait $pip_pid
tail -2 "$res/pip.log"
export PYTHONPATH=/tmp/site
OUT=$res NSA_PARTS="verify sanitizer compare" NSA_SHAPES=final NSA_COMPARE_TIMEOUT=110 \
  timeout -k 5 $(( 560 - ($(date +%s) - t0) )) bash "$pack/nsa-run.sh" > "$res/nsa-run.log" 2>&1
echo "nsa-run rc=$?"; tail -45 "$res/nsa-run.log"
el done
cd "$OUT" && tar czf p2-logs.tgz p2 && rm -rf p2/specs p2/prof/*.ncu-rep && ls -la p2
