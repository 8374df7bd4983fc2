#!/usr/bin/env bash
# Thirty-first session, call 3: branch nsa-kv-staged as it lands. Its fatbin (.gpupack/var/v3.fatbin.xz) holds main's
# kernels unchanged (every function's .text byte-identical to main's build) plus the four nsa_bwd_wgmma_*_d128_b64_kvs
# entries, whose .text is identical to those call 2 timed (1.026-1.037x main at T = 64K); host code
# .gpupack/var/v-engine.jar (the same Java as call 2's). Issue 14's side by side with fla-core 0.5.2 on every
# published shape in one run, then the quick NSA verify (with the T = 64K cases that take the staged variant), then
# memcheck and racecheck of the staged variant at T = 65536 (one head, S = 2: the sanitizers are slow).
#   bash docs/results/gpu-2026-12-06e/call3/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c3
xz -dc .gpupack/var/v3.fatbin.xz > /tmp/v3.fatbin
ab_pack /tmp/pl /tmp/v3.fatbin nsa-kv-staged .gpupack/var/v-engine.jar
cp bench/gpu/nsa-run.sh /tmp/pl/nsa-run.sh
python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1
ab_el "side by side with fla"
OUT=$ab_res/fla PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=all NSA_COMPARE_ORDERS="warp block" \
  NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=190 NSA_COMPARE_TIMEOUT=240 timeout -k 5 250 /tmp/pl/nsa-run.sh \
  > "$ab_res/fla.out" 2>&1
echo "rc=$?"; sed -n '/== summary/,$p' "$ab_res/fla.out" | tail -16
grep -h '"kernel"' "$ab_res"/fla/nsa/saw-bench.jsonl 2>/dev/null | grep -o '"kernel":"[a-z0-9_]*"' | sort | uniq -c
ab_save
ab_el "quick verify"
OUT=$ab_res/check NSA_PARTS="verify" NSA_VERIFY=quick timeout -k 5 200 /tmp/pl/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify.out" | head -6
ab_save
ab_el "sanitizers on the staged variant"
for tool in memcheck racecheck; do
  ab_san /tmp/pl kvs64k "$tool" --pass fwd,bwd --nsa random --nsa-block 64 --nsa-s 2 --heads 1 --kv-heads 1 \
    --head-dim 128 --dtype bf16 --seq 65536
done
ab_save
ab_el done
