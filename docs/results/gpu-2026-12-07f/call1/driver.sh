#!/usr/bin/env bash
# Prepared in the forty-second session, not run (its device time was spent): on the landed kernels (walkvote.fatbin,
# d55eaa9's sm_90a build, sha256 73d563d6...) and main 27dd8d1's engine jar (var/engine.jar, the 256 MiB fill before
# every timed run where the GPU has room; fatbin emptied, sha256 b40712b9...):
#  1. the new jar against the fp64 reference (NSA scored D = 128, dense causal D = 128 sampled rows);
#  2. what the fill on every row changes: 872fce7's jar (var/flush-engine.jar: the fill only under 256 MiB of tensors)
#     against 27dd8d1's, two rounds, on the dense rows that went without it (causal 8K / 16K D = 128, causal 16K D = 64)
#     and on NSA rows over 256 MiB (random 32K D = 128 forward, scored 64K D = 64 forward, random 8K D = 128 backward);
#  3. issue 12's rows with cuDNN (frontier-table.sh), both sides now filled on every row;
#  4. issue 14's side by side: random selections (not run since the forty-first session), then scored again.
# Carry .gpupack (the slim pack of 87882a9; var/walk.tar.xz, var/engine.jar, var/flush-engine.jar) and .whl:
#   CALL_BUDGET=540 bash docs/results/gpu-2026-12-07e/next-not-run/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init fill
left() { echo $(( ${CALL_BUDGET:-540} - ($(date +%s) - ab_t0) )); }
[[ -f /tmp/walkvote.fatbin ]] || xz -dc .gpupack/var/walk.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin .gpupack/var/engine.jar .gpupack/var/flush-engine.jar
ab_pack /tmp/pf /tmp/walkvote.fatbin fill-27dd8d1 "$ab_root/.gpupack/var/engine.jar"
ab_pack /tmp/ph /tmp/walkvote.fatbin small-fill-872fce7 "$ab_root/.gpupack/var/flush-engine.jar"
cp bench/gpu/frontier-table.sh bench/gpu/specs-lib.sh bench/gpu/varlen_peers.py bench/gpu/ragged_rows.py /tmp/pf/
ab_el "fp64 checks"
ab_verify /tmp/pf nsa-d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 \
  --dtype bf16 --seq 4096
ab_verify /tmp/pf causal-16k-d128 causal --seq 16384 --heads 16 --kv-heads 8 --head-dim 128 --dtype bf16 --rows 16 \
  --block 128x128 --pass fwd,bwd
ab_save
ab_el "the fill on every row against the fill under 256 MiB: dense"
AB_DEADLINE=$(( $(date +%s) - ab_t0 + 100 )) ab_rounds 2 /tmp/ph small-fill /tmp/pf fill causal-8k-d128 \
  causal-16k-d128 causal-16k-d64
ab_el "the same: NSA rows over 256 MiB"
rows=("fwd random 1 32768 64 128 10" "fwd scored 1 65536 64 64 10" "bwd random 1 8192 64 128 10")
for r in 1 2; do
  order="/tmp/ph:small-fill /tmp/pf:fill"; (( r == 2 )) && order="/tmp/pf:fill /tmp/ph:small-fill"
  ab_nsa_rounds 1 "$order" "${rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-nsa-$r"; mkdir -p "$ab_res/ab"; ab_save
done
ab_el "issue 12: frontier table"
OUT="$ab_res" timeout -k 5 150 /tmp/pf/frontier-table.sh > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
ab_save
if (( $(left) > 90 )); then
  ab_el "issue 14: random side by side"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pf fla-random NSA_COMPARE_SELECTION=random \
    NSA_COMPARE_ORDERS="warp shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 45 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,64,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,32768,64,4,128,64,16;\
1,8192,64,4,128,64,16"
  ab_save
fi
if (( $(left) > 150 )); then
  ab_el "issue 14: scored side by side again"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pf fla-scored NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 45 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,8192,64,4,64,64,16;4,16384,64,4,64,64,16;1,32768,64,4,64,64,16;1,65536,64,4,64,64,16;\
1,8192,64,4,128,64,16;4,16384,64,4,128,64,16;1,32768,64,4,128,64,16;1,65536,64,4,128,64,16"
  ab_save
fi
cat "$ab_res/frontier/table.txt" 2>/dev/null
for f in fla-random fla-scored; do tail -14 "$ab_res/$f/nsa/compare-summary.txt" 2>/dev/null; done
ab_el done
