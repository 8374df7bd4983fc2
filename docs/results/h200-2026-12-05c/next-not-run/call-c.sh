#!/usr/bin/env bash
# Next session, call C (about 3 minutes per pack): issue 12's rows with cuDNN in the same call (frontier-table.sh) on
# the packs named (default: main and UAX), e.g. bash call-c.sh /tmp/pa /tmp/px
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh cc
packs=("$@")
(( ${#packs[@]} )) || packs=(/tmp/pa /tmp/puax)
for p in "${packs[@]}"; do
  ab_el "frontier-table on $p"
  OUT=/tmp/cc/ft-$(basename "$p") timeout -k 5 280 bash "$p/frontier-table.sh" >/dev/null 2>&1
  cat /tmp/cc/ft-"$(basename "$p")"/frontier/table.txt
done
ab_save
ab_el done
