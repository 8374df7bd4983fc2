#!/usr/bin/env bash
# session 5, the one call: issue 18's 4M forward (all four masks, sampled verify) and 2M forward + backward of
# chunked 8192 and 64K documents (sampled verify) on the final kernels; window and sinks at 2M ran in session 4 call 5
set -uo pipefail
root=$PWD
res=$OUT/d7
mkdir -p "$res"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,memory.total --format=csv > "$res/gpu.txt"
cat "$res/gpu.txt"
cat .gpupack/saw | grep -i commit | head -3
el "4M forward"
OUT=$res/l4m SAW_LONG_SIZES=4194304 SAW_LONG_MASKS="window sinks chunked docs64k" SAW_LONG_VERIFY=1 \
  timeout -k 5 120 bash .gpupack/long-context.sh > "$res/long-4m.txt" 2>&1
el "4M rc=$?"
left=$(( 205 - ($(date +%s) - t0) ))
(( left < 20 )) && left=20
el "2M fwd+bwd, $left s left"
OUT=$res/l2m SAW_LONG_SIZES=2097152 SAW_LONG_MASKS="chunked docs64k" SAW_LONG_VERIFY=1 \
  timeout -k 5 $left bash .gpupack/long-context.sh > "$res/long-2m.txt" 2>&1
el "2M rc=$?"
cat "$res/long-4m.txt" "$res/long-2m.txt"
el done
