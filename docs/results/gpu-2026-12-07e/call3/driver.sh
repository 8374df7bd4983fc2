#!/usr/bin/env bash
# Forty-second session, call 3: the build that lands (branch nsa-walk-vote64: main's kernels but D = 64's walk, whose
# six functions' .text equals vote64's measured in call 2; main 872fce7's engine jar, the flushing harness), then both
# issues' tables under the new harness in one call:
#  1. fp64 checks of the D = 64 walk (tail, softcap, blocks of 32 and 128, G = 5), D = 128, memcheck;
#  2. issue 14's side by side with fla-core 0.5.2, scored selections D = 128 and 64;
#  3. issue 12's rows with cuDNN and the ragged peers (frontier-table.sh of main, copied into the pack);
#  4. issue 14's random selections (warp and shared orders), then the full NSA verify matrix, as time allows.
# Carry .gpupack (slim pack of 87882a9; var/walk.tar.xz: walkvote.fatbin, sha256 73d563d6...; var/flush-engine.jar,
# main 872fce7's engine jar, fatbin emptied) and .whl:
#   CALL_BUDGET=560 bash docs/results/gpu-2026-12-07e/call3/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init land
left() { echo $(( ${CALL_BUDGET:-560} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/walk.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin .gpupack/var/flush-engine.jar
ab_pack /tmp/pw /tmp/walkvote.fatbin walkvote "$ab_root/.gpupack/var/flush-engine.jar"
cp bench/gpu/frontier-table.sh bench/gpu/specs-lib.sh bench/gpu/varlen_peers.py bench/gpu/ragged_rows.py /tmp/pw/
ab_el "fp64 checks"
SAW_NSA_FWD=shared ab_verify /tmp/pw d64-tail --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 77 --batch 2
SAW_NSA_FWD=shared ab_verify /tmp/pw d64-b128-softcap --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 \
  --head-dim 64 --dtype bf16 --seq 1001 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pw d64-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 3000 --pass fwd
SAW_NSA_FWD=warp ab_verify /tmp/pw warp-d64-softcap --nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 2048 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pw d64-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 64 --dtype bf16 --seq 8192
SAW_NSA_FWD=shared ab_verify /tmp/pw d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 128 --dtype bf16 --seq 4096
SAW_NSA_FWD=shared ab_san /tmp/pw d64 memcheck --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
ab_save
ab_el "issue 14: scored side by side, D = 128 and 64"
AB_CHECK_TIMEOUT=170 ab_nsa_fla /tmp/pw fla-scored NSA_COMPARE_SELECTION=scored NSA_COMPARE_ORDERS="shared" \
  NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=135 NSA_COMPARE_TIMEOUT=165 NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,65536,64,4,128,64,16;1,32768,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;\
1,65536,64,4,64,64,16;1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;1,8192,64,4,64,64,16"
ab_save
ab_el "issue 12: frontier table"
OUT="$ab_res" timeout -k 5 150 /tmp/pw/frontier-table.sh > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
ab_save
if (( $(left) > 80 )); then
  ab_el "issue 14: random side by side"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pw fla-random NSA_COMPARE_SELECTION=random \
    NSA_COMPARE_ORDERS="warp shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 50 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,8192,64,4,128,64,16;1,32768,64,4,128,64,16;4,16384,64,4,128,64,16;1,65536,64,4,128,64,16;\
1,32768,64,4,64,64,16"
  ab_save
fi
if (( $(left) > 230 )); then
  ab_el "issue 14: the full verify matrix"
  AB_CHECK_TIMEOUT=$(( $(left) - 5 )) ab_nsa_check /tmp/pw check NSA_PARTS=verify
  ab_save
fi
cat "$ab_res/frontier/table.txt" 2>/dev/null
for f in fla-scored fla-random; do tail -14 "$ab_res/$f/nsa/compare-summary.txt" 2>/dev/null; done
ab_el done
