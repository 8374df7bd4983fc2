#!/usr/bin/env bash
# Twenty-fifth session, call 1, short (about 5-6 minutes): call-1.sh without UA and UAF (five builds: A, U, X, UAX, F),
# timed forward and backward on issue 12's rows, three rounds if each round
# takes under about 115 s (else two), every build's ratio to main (A) per round; no checks (call-a.sh / call-2.sh
# check the builds that win).
# Run: bash docs/results/h200-2026-12-05c/next-not-run/call-1s.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh c1
AB_DEADLINE=${AB_DEADLINE:-230} ab_rounds_multi 3 "/tmp/pa:A /tmp/pu:U /tmp/px:X /tmp/puax:UAX /tmp/pf:F" \
  causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs8-16k-d128 window1024-16k-d128 docs64-32k-d128 \
  causal-8k-d64 causal-16k-d64 "gqa-32k-d64|--kv-heads 8" docs8-16k-d64 \
  "causal-8k-d256|--block 64x64"
ab_el done
