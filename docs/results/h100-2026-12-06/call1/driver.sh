#!/usr/bin/env bash
# The builds named by tag (default all seven: A U UA UAF X UAX F) timed forward and backward on issue 12's rows, three
# rounds, each starting one build later, every build's ratio to the first per round (bench/ab_table.py); no checks
# (call-2.sh checks the builds that win). No round starts after AB_DEADLINE seconds (default 330: with seven builds
# three rounds if a round takes under about 165 s, else two; about 7 minutes). E.g.
#   bash docs/results/h200-2026-12-05c/next-not-run/call-1.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
#   AB_DEADLINE=470 bash .../call-1.sh A U UA UAF X UAX   (the twenty-fourth session's call B, about 6 minutes)
#   AB_DEADLINE=120 bash .../call-1.sh A U X UAX F        (five builds, two rounds, about 4 minutes)
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh c1
tags=("$@")
(( ${#tags[@]} )) || tags=(A U UA UAF X UAX F)
builds=""
for t in "${tags[@]}"; do
  [[ -n ${build_pack[$t]:-} ]] || { echo "call-1.sh: no build tagged '$t' (lib.sh has: ${!build_pack[*]})"; exit 2; }
  builds+="${build_pack[$t]}:$t "
done
AB_DEADLINE=${AB_DEADLINE:-330} ab_rounds_multi 3 "$builds" \
  causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs8-16k-d128 window1024-16k-d128 docs64-32k-d128 \
  causal-8k-d64 causal-16k-d64 "gqa-32k-d64|--kv-heads 8" docs8-16k-d64 \
  "causal-8k-d256|--block 64x64"
ab_el done
