#!/usr/bin/env bash
# Thirty-second session, call 2 (for an H200, the machine issue 14's targets name; none has run the NSA kernels since
# the twenty-seventh session): issue 14's side by side with fla-core 0.5.2 on every published shape (random
# selections, main's kernels: .gpupack/var/s.fatbin.xz holds them byte-identical, see call 1), then the quick NSA verify.
# Carry as call 1.
#   bash docs/results/gpu-2026-12-06f/call2/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
xz -dc .gpupack/var/s.fatbin.xz > /tmp/s.fatbin
ab_pack /tmp/pa /tmp/s.fatbin main
cp bench/gpu/nsa-run.sh /tmp/pa/
ab_el "side by side with fla, random selections"
ab_nsa_fla /tmp/pa fla
ab_save
ab_el "quick verify"
AB_CHECK_TIMEOUT=150 ab_nsa_check /tmp/pa check NSA_PARTS=verify NSA_VERIFY=quick
ab_save
ab_el done
