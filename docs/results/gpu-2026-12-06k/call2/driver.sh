#!/usr/bin/env bash
# Thirty-seventh session, call 2 (warm machine after call 1): keys64 (64-key chunks at D = 64) against main, a second
# round, the warp order beside it, keys64's quick verify matrix and the scored D = 64 side by side with fla.
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pk2
left() { echo $(( ${CALL_BUDGET:-300} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp main.fatbin keys64.fatbin
ab_pack /tmp/pm /tmp/main.fatbin main-8c87593
ab_pack /tmp/pk /tmp/keys64.fatbin keys64 .gpupack/var/keys64-engine.jar
ab_el "round 2"
ab_nsa_rounds 1 "/tmp/pk:keys64 /tmp/pm:main" "fwd scored 1 32768 64 64 10" "fwd scored 1 8192 64 64 10" \
  "fwd scored 4 16384 64 64 10"
for b in "/tmp/pk:keys64" "/tmp/pm:main"; do
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$b" "fwd random 1 8192 64 64 10" "fwd random 1 32768 64 64 10" \
    "fwd scored 1 65536 64 64 10"
done
SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/pm:warp" "fwd random 1 8192 64 64 10" "fwd random 1 32768 64 64 10" \
  "fwd scored 1 65536 64 64 10"
ab_save
ab_el "scored D = 64 side by side, keys64"
AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pk fla-keys64 NSA_COMPARE_SELECTION=scored \
  NSA_COMPARE_ORDERS="shared" NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=$(( $(left) - 60 )) \
  NSA_COMPARE_TIMEOUT=$(( $(left) - 15 )) NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,32768,64,4,64,64,16;4,16384,64,4,64,64,16;1,8192,64,4,64,64,16"
ab_save
ab_el done
