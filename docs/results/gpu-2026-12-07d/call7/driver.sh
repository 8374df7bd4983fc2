#!/usr/bin/env bash
# Forty-first session, call 7, asked of the nvidia-h200 kind (which may run on an H100; the log's first lines name the
# card): issue 14's side by side with fla-core 0.5.2 on main b5e4cd1's kernels (skip.fatbin): two fp64 checks, scored
# selections at D = 128 and 64, random selections at D = 128 (warp and shared orders) and D = 64 32K, forward and
# backward, fla's outputs cross-checked by the compare.
# Carry .gpupack and .whl:
#   CALL_BUDGET=400 bash docs/results/gpu-2026-12-07d/call7/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init side
left() { echo $(( ${CALL_BUDGET:-400} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp skip.fatbin
sha256sum /tmp/skip.fatbin
ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1
ab_el "fp64 checks"
SAW_NSA_FWD=shared ab_verify /tmp/ps d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 128 --dtype bf16 --seq 8192
SAW_NSA_FWD=shared ab_verify /tmp/ps d64-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 1001 --batch 2 --softcap 30
ab_save
ab_el "scored side by side, D = 128 and 64"
AB_CHECK_TIMEOUT=170 ab_nsa_fla /tmp/ps fla-scored NSA_COMPARE_SELECTION=scored NSA_COMPARE_ORDERS="shared" \
  NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=135 NSA_COMPARE_TIMEOUT=165 NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,65536,64,4,128,64,16;1,32768,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,65536,64,4,64,64,16;1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;1,8192,64,4,64,64,16"
ab_save
if (( $(left) > 80 )); then
  ab_el "random side by side"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/ps fla-random NSA_COMPARE_SELECTION=random \
    NSA_COMPARE_ORDERS="warp shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 50 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,8192,64,4,128,64,16;1,32768,64,4,128,64,16;4,16384,64,4,128,64,16;1,65536,64,4,128,64,16;1,32768,64,4,64,64,16"
  ab_save
fi
for f in fla-scored fla-random; do tail -30 "$ab_res/$f/nsa/compare-summary.txt" 2>/dev/null; done
ab_el done
