#!/usr/bin/env bash
# Fortieth session: the walk whose consumers touch only their own token's chunks (branch nsa-walk-skip on main's 11-token
# tiles; nsa-walk-tokens15 + the same change, t15skip) against main 87882a9 (the 15-token walk alone was measured level
# with main in gpu-2026-12-07b). Carry .gpupack (slim pack of main 87882a9, engine fatbin emptied; var/skip.tar.xz:
# main.fatbin, skip.fatbin, t15skip.fatbin; var/t15-engine.jar) and .whl.
#   CALL_BUDGET=400 bash docs/results/gpu-2026-12-07c/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init skip
left() { echo $(( ${CALL_BUDGET:-420} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/skip.tar.xz | tar xf - -C /tmp
sha256sum /tmp/main.fatbin /tmp/skip.fatbin /tmp/t15skip.fatbin
ab_pack /tmp/pm /tmp/main.fatbin main-87882a9
ab_pack /tmp/ps /tmp/skip.fatbin skip
ab_pack /tmp/pts /tmp/t15skip.fatbin t15skip .gpupack/var/t15-engine.jar
ab_el "skip and t15skip against the fp64 reference"
v() { local pack=$1 name=$2; shift 2; SAW_NSA_FWD=shared ab_verify "$pack" "$name" "$@" --pass fwd; }
for p in /tmp/ps /tmp/pts; do
  v $p d64-tail --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 \
    --batch 2
  v $p d64-b128-softcap --nsa random --nsa-block 128 --nsa-s 6 --heads 8 --kv-heads 1 --head-dim 64 --dtype bf16 \
    --seq 1001 --softcap 30
  v $p d64-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 64 --dtype bf16 \
    --seq 8192 --batch 2
  v $p d64-b32-g5 --nsa random --nsa-block 32 --nsa-s 16 --heads 10 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 3000
done
v /tmp/ps d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 --head-dim 128 \
  --dtype fp16 --seq 77 --batch 2 --softcap 30
v /tmp/ps d128-b128-scored --nsa scored --nsa-block 128 --nsa-s 8 --heads 32 --kv-heads 2 --head-dim 128 \
  --dtype bf16 --seq 5000
v /tmp/ps d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 \
  --seq 8192
for tool in memcheck racecheck; do
  SAW_NSA_FWD=shared ab_san /tmp/ps d64 "$tool" --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
    --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
done
SAW_NSA_FWD=shared ab_san /tmp/ps d128-b128 racecheck --nsa scored --nsa-block 128 --nsa-s 8 --heads 16 \
  --kv-heads 2 --head-dim 128 --dtype bf16 --seq 1500 --pass fwd
SAW_NSA_FWD=shared ab_san /tmp/pts d64 racecheck --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 64 --dtype fp16 --seq 2000 --batch 2 --softcap 30 --pass fwd
ab_save
rows64=("fwd scored 1 32768 64 64 10" "fwd scored 4 16384 64 64 10" "fwd scored 1 8192 64 64 10"
  "fwd scored 1 65536 64 64 10" "fwd random 1 32768 64 64 10" "fwd random 1 8192 64 64 10")
rows128=("fwd scored 1 32768 64 128 10" "fwd scored 1 65536 64 128 10" "fwd random 1 32768 64 128 10")
round() { # N, the builds in this round's order
  ab_el "A/B round $1 (the walk forced: SAW_NSA_FWD=shared)"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$2" "${rows64[@]}"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$3" "${rows128[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$1"; mkdir -p "$ab_res/ab"; ab_save
}
round 1 "/tmp/pm:main /tmp/ps:skip /tmp/pts:t15skip" "/tmp/pm:main /tmp/ps:skip"
best=$(for b in skip t15skip; do
  printf '%s %s\n' "$(grep -ho '"median_ms":[0-9.]*' "$ab_res"/ab-1/$b-fwd-scored-b1-t32768-hq64-d64-r1.jsonl \
    | head -1 | cut -d: -f2)" "$b"; done | sort -n | head -1 | cut -d' ' -f2)
ab_el "fastest on scored 32K D = 64: $best"
bp=/tmp/ps; [[ $best == t15skip ]] && bp=/tmp/pts
if (( $(left) > 170 )); then
  ab_el "scored D = 64 side by side, $best"
  AB_CHECK_TIMEOUT=$(( $(left) - 15 )) ab_nsa_fla $bp fla-$best NSA_COMPARE_SELECTION=scored \
    NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) > 260 ? 110 : $(left) - 60 )) \
    NSA_COMPARE_TIMEOUT=$(( $(left) - 20 )) NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;1,8192,64,4,64,64,16;1,65536,64,4,64,64,16"
  ab_save
fi
(( $(left) > 100 )) && round 2 "/tmp/pts:t15skip /tmp/ps:skip /tmp/pm:main" "/tmp/ps:skip /tmp/pm:main"
if (( $(left) > 12 )); then
  ab_sass nsa_fwd_shared_bf16_d64_b64 /tmp/main.fatbin /tmp/skip.fatbin /tmp/t15skip.fatbin
  ab_save
fi
ab_el done
