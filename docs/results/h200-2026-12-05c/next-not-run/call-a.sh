#!/usr/bin/env bash
# Next session, call A (about 6 minutes): the main loops' opcodes of all six builds (cuobjdump; is R2UR / ULOP3 / LOP3
# down, are the dQ tile's stores STS.128?), then the checks (verify cases and compute-sanitizer, bench/gpu/ab-lib.sh's
# ab_checks) on every build whose changed entries no other checked build has: U (the forwards' and backward's
# uniform bases), UAF (its backward is UA's, PTX identical; its forward the adds), X and UAX. UA's forward PTX is U's.
# Run: bash docs/results/h200-2026-12-05c/next-not-run/call-a.sh > /dev/null 2>&1; tail -c 8000 $OUT/driver.log
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh ca
ab_el "1. the main loops"
for f in bwd_wgmmaws_bf16_d128_q128_kv128 bwd_wgmmaws_bf16_d64_q128_kv128 fwd_wgmmapp_bf16_d128_q128_kv128 \
         fwd_wgmmaws_bf16_d128_q128_kv128; do
  ab_sass "$f" /tmp/fb/main.fatbin /tmp/fb/u.fatbin /tmp/fb/ua.fatbin /tmp/fb/uaf.fatbin /tmp/fb/x.fatbin /tmp/fb/uax.fatbin
done
ab_save
ab_el "2. checks"
for p in /tmp/pu /tmp/puaf /tmp/px /tmp/puax; do ab_checks "$p"; done
ab_el done
