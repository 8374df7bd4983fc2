#!/usr/bin/env bash
# Call 6 (twenty-seventh session): frontier-table.sh as the repository now has it (varlen_peers.py split, its pure part
# in ragged_rows.py) on the landed build, main 779569d (call 5's fatbin and engine jar), to check the split scripts
# on the GPU. Carried: .gpupack with var/landed.fatbin.xz and var/landed-engine.jar.
#   bash docs/results/h100-2026-12-06/call6/driver.sh > /dev/null 2>&1; tail -c 6000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c6
mkdir -p /tmp/fb && xz -dc .gpupack/var/landed.fatbin.xz > /tmp/fb/landed.fatbin
(cd /tmp/fb && sha256sum -c "$ab_root/docs/results/h100-2026-12-06/call5/fatbins.sha256") || echo "fatbin differs"
ab_pack /tmp/pm /tmp/fb/landed.fatbin main-779569d .gpupack/var/landed-engine.jar
OUT=/tmp/c6 timeout -k 5 240 /tmp/pm/frontier-table.sh > /dev/null 2>&1 || echo "frontier-table rc=$?"
cat /tmp/c6/frontier/varlen.txt /tmp/c6/frontier/table.txt
ab_save
ab_el done
