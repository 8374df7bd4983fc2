#!/usr/bin/env bash
# round A driver (not committed): runs each engineer's script with its own time limit, logs under $OUT
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD/python
start=$SECONDS
part() { local name=$1 limit=$2; shift 2; echo "===== $name (limit $limit s) at $((SECONDS-start)) s"; 
  timeout -k 5 "$limit" env "$@" > "$OUT/$name.txt" 2>&1; echo "rc=$?" >> "$OUT/$name.txt"; tail -25 "$OUT/$name.txt"; }
part bwd 150 OUT=$OUT bash .gpupack/bwd-frontier.sh
part split-dq 80 OUT=$OUT SAW_KERNEL_BWD=wgmma-dq SPLIT_TIME=0 bash .gpupack/split-check.sh
part nsa 140 OUT=$OUT NSA_PARTS="blockverify blocksan compare" NSA_COMPARE_ORDERS="warp block" NSA_SHAPES=quick NSA_DUMP_ORDER=block NSA_BWD_CHUNKED=1 NSA_COMPARE_SECONDS=20 bash .gpupack/nsa-run.sh
part d256 130 OUT=$OUT bash .gpupack/d256-wgmma.sh
echo "total $((SECONDS-start)) s"
cd $OUT && find . -name "*.npy" -delete; find . -size +3M -delete; tar czf roundA.tgz --exclude=roundA.tgz . && find . -mindepth 1 -not -name roundA.tgz -delete
