#!/usr/bin/env bash
# Session 14, call 4: main at the session's end, the real build (bench/gpu-pack.sh .gpupack-n4: sm_80 + sm_90a + PTX):
#  1. bench/gpu/frontier-table.sh: issue 12's rows, saw forward and backward beside cuDNN SDPA, one call
#  2. bench/gpu/d256-fwd128.sh: the D = 256 128-row forward (Q in registers): SASS, verify, sanitizers, timing + cuDNN
#  3. bench/gpu/d256-bwd-wgmma.sh: D = 256 forward + backward beside FlexAttention and cuDNN (issue 13)
set -uo pipefail
pack=$PWD/.gpupack-n4
exec > >(tee "$OUT/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
el "1. frontier table"
OUT=$OUT timeout -k 5 240 "$pack/frontier-table.sh" 2>&1 | tail -15
el "2. d256-fwd128"
OUT=$OUT timeout -k 5 150 "$pack/d256-fwd128.sh" 2>&1 | tail -30
el "3. d256-bwd-wgmma"
OUT=$OUT timeout -k 5 150 "$pack/d256-bwd-wgmma.sh" 2>&1 | tail -30
el done
cd "$OUT" && tar czf n4-logs.tgz frontier d256f d256b 2>/dev/null; ls -la "$OUT"
