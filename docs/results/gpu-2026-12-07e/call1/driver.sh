#!/usr/bin/env bash
# Prepared in the forty-first session, not run (its device time was spent): what the timing harness's L2 flush
# (872fce7: a timed run of a problem whose tensors are under 256 MiB fills 256 MiB of scratch before its start event,
# as triton's do_bench times fla) changes, on the same kernels (main b5e4cd1's skip.fatbin):
#  1. the new engine jar against the fp64 reference once (it runs with the pack's other jars);
#  2. old harness (the pack's engine jar, 87882a9: up to eight rotated input sets, the host's launch inside the timed
#     span) against new (var/flush-engine.jar, 872fce7, fatbin emptied), two rounds, on short and long NSA rows
#     (forward, auto's order, and one backward) and on issue 12's dense rows (ab_rounds: causal 8K / 16K, docs8-8k);
#  3. issue 14's side by side with fla under the new harness (scored D = 64 and 128, random D = 128 and D = 64 32K).
# Carry .gpupack (the slim pack of 87882a9; var/next.tar.xz: skip.fatbin, vote64.fatbin and split.fatbin, sha256 in
# fatbins.sha256 here; var/flush-engine.jar) and .whl:
#   CALL_BUDGET=540 bash docs/results/gpu-2026-12-07d/next-not-run/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init harness
left() { echo $(( ${CALL_BUDGET:-540} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp skip.fatbin
sha256sum /tmp/skip.fatbin .gpupack/var/flush-engine.jar
ab_pack /tmp/po /tmp/skip.fatbin rotation-87882a9
ab_pack /tmp/pn /tmp/skip.fatbin flush-872fce7 "$ab_root/.gpupack/var/flush-engine.jar"
ab_el "the new engine jar against the fp64 reference"
ab_verify /tmp/pn d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --seq 4096
ab_save
rows=("fwd scored 1 8192 64 64 20" "fwd scored 1 8192 64 128 20" "fwd random 1 8192 64 128 20"
  "fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 128 10" "bwd random 1 8192 64 128 10")
for r in 1 2; do
  ab_el "NSA, old and new harness, round $r"
  order="/tmp/po:rotation /tmp/pn:flush"; (( r == 2 )) && order="/tmp/pn:flush /tmp/po:rotation"
  ab_nsa_rounds 1 "$order" "${rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-nsa-$r"; mkdir -p "$ab_res/ab"; ab_save
done
if (( $(left) > 330 )); then
  ab_el "dense, old and new harness"
  AB_DEADLINE=$(( $(date +%s) - ab_t0 + 120 )) ab_rounds 2 /tmp/po rotation /tmp/pn flush causal-8k-d128 \
    causal-8k-d64 docs8-8k-d128
  ab_save
fi
if (( $(left) > 150 )); then
  ab_el "issue 14's side by side under the new harness"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pn fla-scored NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 60 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 20 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,8192,64,4,64,64,16;1,65536,64,4,64,64,16;1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;\
1,8192,64,4,128,64,16;1,32768,64,4,128,64,16"
  ab_save
fi
ab_el done
