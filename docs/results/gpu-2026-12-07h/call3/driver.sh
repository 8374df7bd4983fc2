#!/usr/bin/env bash
# Forty-fifth session, call 3: issue 12's side-by-side table (frontier-table.sh, FT_ROUNDS rounds, 2 by default: saw
# first in odd rounds, the peers first in even ones) on the build with the row spans landed (call 2's kernels,
# spans2.fatbin, with the branch's engine jar), so that the documents and window rows of the table carry the new
# forward.
# Carry .gpupack (var/both.tar.xz, var/spans-engine.jar):
#   bash docs/results/gpu-2026-12-07h/call3/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c3
xz -dc .gpupack/var/both.tar.xz | tar xf - -C /tmp
sha256sum /tmp/spans2.fatbin .gpupack/var/spans-engine.jar
ab_pack /tmp/pf /tmp/spans2.fatbin "${SAW_LABEL:-spans}" "$ab_root/.gpupack/var/spans-engine.jar"
cp bench/gpu/frontier-table.sh bench/gpu/frontier_table.py bench/gpu/specs-lib.sh bench/gpu/varlen_peers.py \
  bench/gpu/ragged_rows.py /tmp/pf/
ab_el "issue 12: frontier table, ${FT_ROUNDS:-2} rounds"
OUT="$ab_res" FT_ROUNDS=${FT_ROUNDS:-2} timeout -k 5 330 /tmp/pf/frontier-table.sh > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
ab_save
cat "$ab_res/frontier/table.txt"
ab_el done
