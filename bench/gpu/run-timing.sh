#!/usr/bin/env bash
# The issue-3 timing table: B=4 H=16 D=128 bf16, S=8192 and 16384, causal / window 1024 / 8 packed causal docs,
# forward and backward over several tiles. Logs go to ${OUT:-.}/timing.log.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader || true
timeout 240 "$here/runtime/bin/java" ${SAW_JAVA_OPTS:-} -cp "$here/lib/*" saw.app.cli.KernelTiming "$@" 2>&1 | tee "${OUT:-$here}/timing.log"
