#!/usr/bin/env bash
# Prepared in the forty-eighth session, not run: issue 12's whole table in one call, now with its random-block rows
# (frontier-table.sh with FT_RANDOM=1: saw and cuDNN / the ragged peers alternating in FT_ROUNDS rounds (3), and each
# random-block row of 8K and 16K beside a causal problem of the same tiles per row and work, every round), on the pack
# the session builds (SAW_PACK_SLIM=1 bench/gpu-pack.sh .gpupack; tar cf - .gpupack | xz -9e > .gpc/pack.tar.xz).
# Carry .gpc:
#   tar xJf .gpc/pack.tar.xz && bash docs/results/gpu-2026-12-07k/next/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init next
grep SAW_GIT_COMMIT .gpupack/saw
sha256sum .gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar
ab_el "issue 12: frontier table with the random-block rows, ${FT_ROUNDS:-3} rounds"
OUT="$ab_res" FT_RANDOM=1 FT_ROUNDS=${FT_ROUNDS:-3} timeout -k 5 "${FT_LIMIT:-540}" .gpupack/frontier-table.sh \
  > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
ab_save
cat "$ab_res/frontier/table.txt"
ab_el done
