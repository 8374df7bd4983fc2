#!/usr/bin/env bash
# The thirty-seventh session's prepared call (docs/results/gpu-2026-12-06k/next-not-run/driver.sh), shortened for the
# device time left after the thirty-eighth session's refused starts: two A/B rounds, the scored D = 128 side by side
# before the quick verify matrix. 64-key chunks at D = 128 (branch nsa-walk-keys128, rebuilt on main 9f095ea: only
# the four D = 128 walk entries with blocks 64 and 128 differ from main's sm_90a build). Carry .gpupack (slim pack of
# main 9f095ea, its engine jar's fatbin emptied; var/fatbins.tar.xz: main.fatbin and keys128.fatbin;
# var/keys128-engine.jar, fatbin emptied) and .whl.
#   CALL_BUDGET=390 bash docs/results/gpu-2026-12-07/call1/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pk128
left() { echo $(( ${CALL_BUDGET:-390} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
sha256sum /tmp/main.fatbin /tmp/keys128.fatbin .gpupack/var/keys128-engine.jar
ab_pack /tmp/pm /tmp/main.fatbin main-9f095ea
ab_pack /tmp/pk /tmp/keys128.fatbin keys128 .gpupack/var/keys128-engine.jar
ab_el "keys128 at D = 128 against the fp64 reference"
SAW_NSA_FWD=shared ab_verify /tmp/pk d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --batch 2 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pk d128-scored-many --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 \
  --kv-heads 4 --head-dim 128 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pk d128-b128-tail --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 \
  --head-dim 128 --dtype bf16 --seq 3001 --pass fwd,bwd
SAW_NSA_FWD=shared ab_verify /tmp/pk d128-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 \
  --head-dim 128 --dtype fp16 --seq 1500 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pk d64-b64-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 64 --dtype bf16 --seq 8192 --batch 2 --pass fwd
for tool in memcheck racecheck; do
  SAW_NSA_FWD=shared ab_san /tmp/pk d128 "$tool" --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
    --head-dim 128 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
done
ab_sass nsa_fwd_shared_bf16_d128_b64 /tmp/main.fatbin /tmp/keys128.fatbin
grep -c "LDL\|STL" "$ab_res"/sass/*.sass
ab_save
rows=("fwd scored 1 65536 64 128 10" "fwd scored 1 32768 64 128 10" "fwd scored 4 16384 64 128 10"
  "fwd scored 1 8192 64 128 10" "fwd random 1 32768 64 128 10")
for rd in 1 2; do
  (( $(left) > 250 )) || break
  builds="/tmp/pm:main /tmp/pk:keys128"; [[ $rd == 2 ]] && builds="/tmp/pk:keys128 /tmp/pm:main"
  ab_el "A/B round $rd (auto: the walk on each row)"
  ab_nsa_rounds 1 "$builds" "${rows[@]}"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$builds" "fwd random 1 65536 64 128 10"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/pm:warp" "fwd random 1 65536 64 128 10"
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
if (( $(left) > 80 )); then
  ab_el "scored D = 128 side by side, keys128"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pk fla-keys128 NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 60 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,65536,64,4,128,64,16;1,32768,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16"
  ab_save
fi
if (( $(left) > 60 )); then
  ab_el "keys128: quick verify matrix"
  AB_CHECK_TIMEOUT=$(( $(left) - 5 )) ab_nsa_check /tmp/pk check NSA_PARTS=verify NSA_VERIFY=quick
  ab_save
fi
ab_el done
