#!/usr/bin/env bash
# Next session, call E (about 5 minutes): F, the 128-row Hopper forwards with softcap fixed at compile time (branch
# fwd-cap-split 8533021: `_softcap` entries beside plain ones, the host choosing; the plain step loop loses the inlined
# tanh, which doubled its code: PTX 4,564 -> about 2,100 lines at D = 128). Its checks (the verify cases include
# softcap 20 and 30 forwards and a softcap racecheck), then four rounds of main (A) and F on issue 12's rows.
# Run: bash docs/results/h200-2026-12-05c/next-not-run/call-e.sh > /dev/null 2>&1; tail -c 8000 $OUT/driver.log
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh ce
ab_el "1. the forward's main loop, main and F"
for f in fwd_wgmmapp_bf16_d128_q128_kv128 fwd_wgmmapp_bf16_d64_q128_kv128; do
  ab_sass "$f" /tmp/fb/main.fatbin /tmp/fb/f.fatbin
done
ab_el "2. checks on F"
ab_checks /tmp/pf
ab_el "3. main (A) and F, four rounds"
AB_DEADLINE=480 ab_rounds 4 /tmp/pa A /tmp/pf F causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" \
  docs8-16k-d128 window1024-16k-d128 docs64-32k-d128 causal-8k-d64 causal-16k-d64 "gqa-32k-d64|--kv-heads 8" \
  docs8-16k-d64
ab_el done
