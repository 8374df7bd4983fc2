#!/usr/bin/env bash
# GPU fault drill (issue 7), on a machine with an NVIDIA GPU. In one process it provokes, in order:
#   1. a bwd run of about 5 GiB with all but 4 GiB of the card taken  -> refused by saw's size guard, with the estimate
#   2. one allocation larger than the card                              -> CUDA_ERROR_OUT_OF_MEMORY, naming the buffer and size
#   3. a launch of a kernel the fatbin lacks (fwd_bf16_d96_...)         -> CUDA_ERROR_NOT_FOUND, naming the kernel
#   4. a launch with 2048 threads a block                               -> the driver refuses it, naming the launch shape
#   5. a kernel writing to address 0                                    -> CUDA_ERROR_ILLEGAL_ADDRESS; the context is reset
# and then, in the same process, a normal verification (causal, fwd+bwd, against fp64) and a timed run, which must
# work. Prints a table and "DRILL PASSED" (exit 0) or "DRILL FAILED" (exit 1); exit 2 when there is no usable GPU.
#
# Usage: in a folder made by bench/gpu-pack.sh (which copies this script there):  ./gpu-faults.sh
#        in a repository built with nvcc on the PATH (mvn -DskipTests package):  bench/gpu-faults.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/runtime/bin/java" ]; then
  exec "$here/runtime/bin/java" ${SAW_JAVA_OPTS:--Xmx16g} -cp "$here/lib/*" saw.engine.gpu.FaultDrill
fi
jar="$here/../app/target/saw.jar"
if [ ! -f "$jar" ]; then
  echo "gpu-faults: no gpu pack runtime here and no $jar; run bench/gpu-pack.sh DIR or mvn -DskipTests package first" >&2
  exit 2
fi
exec java ${SAW_JAVA_OPTS:--Xmx16g} -cp "$jar" saw.engine.gpu.FaultDrill
