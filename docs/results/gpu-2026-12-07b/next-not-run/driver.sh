#!/usr/bin/env bash
# Prepared in the thirty-ninth session, not run (every start was refused; see README.md): the D = 64 walk on tiles of
# 15 tokens (branch nsa-walk-tokens15: 15 consumer warps and the producer, 16 warps at 128 registers, against 11 + 1 at
# 167 on main) and the same with the kept max at D = 64 (branch nsa-walk-tokens15k), against main 87882a9.
# Carry .gpupack (slim pack of main 87882a9, its engine jar's fatbin emptied; var/fatbins.tar.xz: main.fatbin,
# t15.fatbin, t15k.fatbin; var/t15-engine.jar, nsa-walk-tokens15's engine jar, fatbin emptied; hashes in
# fatbins.sha256 here) and .whl (fla-core 0.5.2, einops 0.8.2). With a full session's device time:
#   CALL_BUDGET=560 bash docs/results/gpu-2026-12-07b/next-not-run/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
# Each part runs only while the budget allows: one A/B round, the checks, a second round, the scored then random D = 64
# side by side with fla, Nsight Compute on t15's walk, the SASS of both D = 64 walks; follow-up.sh (the D = 64 rule's
# crossing, the random side by side at D = 64, the quick verify matrix) after it.
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init t15
left() { echo $(( ${CALL_BUDGET:-560} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp
sha256sum /tmp/main.fatbin /tmp/t15.fatbin /tmp/t15k.fatbin .gpupack/var/t15-engine.jar
ab_pack /tmp/pm /tmp/main.fatbin main-87882a9
ab_pack /tmp/pt /tmp/t15.fatbin t15 .gpupack/var/t15-engine.jar
ab_pack /tmp/ptk /tmp/t15k.fatbin t15k .gpupack/var/t15-engine.jar
rows=("fwd scored 1 32768 64 64 10" "fwd scored 1 8192 64 64 10" "fwd scored 4 16384 64 64 10"
  "fwd scored 1 65536 64 64 10" "fwd random 1 32768 64 64 10" "fwd random 1 8192 64 64 10")
round() { # N BUILDS (D = 64 rows), then main and t15 on scored 64K at D = 128, whose walk entries changed too
  ab_el "A/B round $1 (auto: the walk on each row)"
  ab_nsa_rounds 1 "$2" "${rows[@]}"
  ab_nsa_rounds 1 "$3" "fwd scored 1 65536 64 128 10"
  mv "$ab_res/ab" "$ab_res/ab-$1"; mkdir -p "$ab_res/ab"; ab_save
}
round 1 "/tmp/pm:main /tmp/pt:t15 /tmp/ptk:t15k" "/tmp/pm:main /tmp/pt:t15"
ab_el "t15 (and t15k on one case) against the fp64 reference"
SAW_NSA_FWD=shared ab_verify /tmp/pt d64-tail --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 77 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pt d64-b128-softcap --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 \
  --head-dim 64 --dtype bf16 --seq 1001 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pt d64-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 64 --dtype bf16 --seq 8192 --batch 2 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pt d64-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 3000 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/pt d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 77 --batch 2 --softcap 30 --pass fwd
SAW_NSA_FWD=shared ab_verify /tmp/ptk d64-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 \
  --head-dim 64 --dtype bf16 --seq 8192 --batch 2 --pass fwd
for tool in memcheck racecheck; do
  SAW_NSA_FWD=shared ab_san /tmp/pt d64 "$tool" --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
done
ab_save
(( $(left) > 150 )) && round 2 "/tmp/ptk:t15k /tmp/pt:t15 /tmp/pm:main" "/tmp/pt:t15 /tmp/pm:main"
if (( $(left) > 60 )); then
  ab_el "scored D = 64 side by side, t15"
  AB_CHECK_TIMEOUT=$(( $(left) - 15 )) ab_nsa_fla /tmp/pt fla-t15 NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) > 200 ? 110 : $(left) - 60 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 20 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;1,8192,64,4,64,64,16;1,65536,64,4,64,64,16"
  ab_save
fi
if (( $(left) > 120 )); then
  ab_prof /tmp/pt walk-d64-t15 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- --nsa scored --heads 64 --kv-heads 4 \
    --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --reps 1 --warmup 2 --pass fwd --seq 32768 --head-dim 64 \
    --out /tmp/p-64.jsonl
  ab_save
fi
if (( $(left) > 12 )); then
  ab_sass nsa_fwd_shared_bf16_d64_b64 /tmp/main.fatbin /tmp/t15.fatbin /tmp/t15k.fatbin
  grep -c "LDL\|STL" "$ab_res"/sass/*.sass
  ab_save
fi
ab_el done
