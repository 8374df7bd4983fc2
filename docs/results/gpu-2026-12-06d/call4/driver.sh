#!/usr/bin/env bash
# Call 4 (thirtieth session): synccheck on the landed NSA kernels (call 2 ran memcheck and racecheck on the same code;
# the staged dQ adds brought a __syncthreads and two __syncwarp into the warpgroup backward's step).
#   bash docs/results/gpu-2026-12-06d/call4/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d4
xz -dc .gpupack/var/land.fatbin.xz > /tmp/land.fatbin
ab_pack /tmp/pl /tmp/land.fatbin nsa-dq-staged
ab_el "synccheck"
OUT=$ab_res/san NSA_PARTS=sanitizer NSA_SAN_TOOLS=synccheck timeout -k 5 150 /tmp/pl/nsa-run.sh > "$ab_res/san.out" 2>&1
echo "rc=$?"; grep -E 'compute-sanitizer' "$ab_res/san.out" | head -8
ab_save
ab_el done
