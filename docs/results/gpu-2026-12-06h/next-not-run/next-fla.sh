#!/usr/bin/env bash
# Prepared in the thirty-fourth session, not run. Call B, after next.sh on the same machine: issue 14's side by side
# with fla-core on scored then random selections, on the build that won call A (BUILD=prod or tma; orders warp, block
# and shared, auto labelled by the walk's sharing). Carry .gpupack (as next.sh) and .whl (fla-core 0.5.2, einops 0.8.2).
#   BUILD=tma CALL_BUDGET=560 bash docs/results/gpu-2026-12-06h/next-not-run/next-fla.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pb
left() { echo $(( ${CALL_BUDGET:-560} - ($(date +%s) - ab_t0) )); }
build=${BUILD:-tma}
mkdir -p /tmp/fb && xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp/fb
engine=$ab_root/.gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar
[[ $build == tma ]] && engine=$ab_root/.gpupack/var/tma-engine.jar
ab_pack /tmp/pb "/tmp/fb/$build.fatbin" "$build" "$engine"
ab_el "side by side, scored selections ($build)"
AB_CHECK_TIMEOUT=130 ab_nsa_fla /tmp/pb fla-scored NSA_COMPARE_SELECTION=scored NSA_COMPARE_SECONDS=100 \
  NSA_COMPARE_TIMEOUT=120 NSA_SHAPES=list \
  NSA_SHAPE_LIST="1,32768,64,4,128,64,16;1,65536,64,4,128,64,16;4,16384,64,4,128,64,16;1,8192,64,4,128,64,16;1,32768,64,4,64,64,16"
ab_save
ab_el "issue 14's side by side, random selections ($build)"
AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_fla /tmp/pb fla NSA_COMPARE_SECONDS=$(( $(left) - 50 )) \
  NSA_COMPARE_TIMEOUT=$(( $(left) - 15 ))
ab_save
ab_el done
