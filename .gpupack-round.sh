#!/usr/bin/env bash
# round B driver (not committed): runs each engineer's script with its own time limit, logs under $OUT
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD/python
start=$SECONDS
part() { local name=$1 limit=$2; shift 2; echo "===== $name (limit $limit s) at $((SECONDS-start)) s";
  timeout -k 5 "$limit" env "$@" > "$OUT/$name.txt" 2>&1; echo "rc=$?" >> "$OUT/$name.txt"; tail -${TAILN:-22} "$OUT/$name.txt"; }
part d256b 120 OUT=$OUT bash .gpupack/d256-bwd-wgmma.sh
part persist 120 OUT=$OUT bash .gpupack/fwd-persist.sh
TAILN=12 part bwd 60 OUT=$OUT BWF_PARTS="verify sanitize" bash .gpupack/bwd-frontier.sh
TAILN=12 part split-dq 60 OUT=$OUT SAW_KERNEL_BWD=wgmma-dq SPLIT_TIME=0 bash .gpupack/split-check.sh
part nsa 110 OUT=$OUT NSA_PARTS="compare" NSA_SHAPES=groups NSA_COMPARE_ORDERS="tile warp block" NSA_BWD_CHUNKED=1 NSA_COMPARE_SECONDS=75 bash .gpupack/nsa-run.sh
echo "total $((SECONDS-start)) s"
cd $OUT && find . -name "*.npy" -delete; find . -size +3M -delete; tar czf round.tgz --exclude=round.tgz . ; find . -mindepth 1 -not -name round.tgz -delete
