#!/usr/bin/env bash
# Next session, call B (about 6 minutes): forward and backward of all six builds on issue 12's rows, three rounds, each
# round starting one build later, every build's ratio to main (A) per round (bench/ab_table.py).
# The D = 256 row (64x64 layout) is there because X also changes the D = 256 backward's dQ stores.
# Run: bash docs/results/h200-2026-12-05c/next-not-run/call-b.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh cb
AB_DEADLINE=470 ab_rounds_multi 3 "/tmp/pa:A /tmp/pu:U /tmp/pua:UA /tmp/puaf:UAF /tmp/px:X /tmp/puax:UAX" \
  causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs8-16k-d128 window1024-16k-d128 docs64-32k-d128 \
  causal-8k-d64 causal-16k-d64 "gqa-32k-d64|--kv-heads 8" docs8-16k-d64 \
  "causal-8k-d256|--block 64x64"
ab_el done
