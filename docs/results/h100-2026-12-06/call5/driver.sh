#!/usr/bin/env bash
# Call 5 (twenty-seventh session): the landed build, main 779569d (uax-d64's kernels, the 16-value dQ conversion,
# main's Dsum), checked (ab_checks: 13 verifies, 7 sanitizer runs) and issue 12's table with cuDNN and the ragged-batch
# peers in the same call. Carried: .gpupack with var/landed.fatbin.xz (sha256 beside this file) and
# var/landed-engine.jar (main's engine classes, its fatbin entry emptied).
#   bash docs/results/h100-2026-12-06/call5/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c5
mkdir -p /tmp/fb && xz -dc .gpupack/var/landed.fatbin.xz > /tmp/fb/landed.fatbin
(cd /tmp/fb && sha256sum -c "$ab_root/docs/results/h100-2026-12-06/call5/fatbins.sha256") || echo "fatbin differs"
ab_pack /tmp/pm /tmp/fb/landed.fatbin main-779569d .gpupack/var/landed-engine.jar
ab_el "1. checks"
ab_checks /tmp/pm
ab_el "2. issue 12's table"
OUT=/tmp/c5 timeout -k 5 300 /tmp/pm/frontier-table.sh > /dev/null 2>&1 || echo "frontier-table rc=$?"
cat /tmp/c5/frontier/varlen.txt /tmp/c5/frontier/table.txt
ab_save
ab_el done
