#!/usr/bin/env bash
# Twenty-fifth session, call 2 (about 1-2 minutes a pack): the checks (verify cases and compute-sanitizer,
# bench/gpu/ab-lib.sh's ab_checks) and the main loops' opcodes of the packs named, e.g.
#   bash docs/results/h200-2026-12-05c/next-not-run/call-2.sh /tmp/px /tmp/pf > /dev/null 2>&1; tail -c 8000 $OUT/driver.log
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh c2
declare -A fat=([/tmp/pu]=u [/tmp/pua]=ua [/tmp/puaf]=uaf [/tmp/px]=x [/tmp/puax]=uax [/tmp/pf]=f [/tmp/pa]=main)
ab_el "1. the main loops"
fats=(/tmp/fb/main.fatbin)
for p in "$@"; do [[ ${fat[$p]} != main ]] && fats+=("/tmp/fb/${fat[$p]}.fatbin"); done
for f in bwd_wgmmaws_bf16_d128_q128_kv128 bwd_wgmmaws_bf16_d64_q128_kv128 fwd_wgmmapp_bf16_d128_q128_kv128; do
  ab_sass "$f" "${fats[@]}"
done
ab_save
ab_el "2. checks"
for p in "$@"; do ab_checks "$p"; done
ab_el done
