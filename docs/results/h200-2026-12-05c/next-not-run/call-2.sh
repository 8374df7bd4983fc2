#!/usr/bin/env bash
# The checks (verify cases and compute-sanitizer, bench/gpu/ab-lib.sh's ab_checks) and the main loops' opcodes (against
# main's) of the builds named by tag, about 1-2 minutes a build, e.g.
#   bash docs/results/h200-2026-12-05c/next-not-run/call-2.sh X F > /dev/null 2>&1; tail -c 8000 $OUT/driver.log
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh c2
for t in "$@"; do
  [[ -n ${build_pack[$t]:-} ]] || { echo "call-2.sh: no build tagged '$t' (lib.sh has: ${!build_pack[*]})"; exit 2; }
done
ab_el "1. the main loops"
fats=("${build_fatbin[A]}")
for t in "$@"; do [[ $t != A ]] && fats+=("${build_fatbin[$t]}"); done
for f in bwd_wgmmaws_bf16_d128_q128_kv128 bwd_wgmmaws_bf16_d64_q128_kv128 fwd_wgmmapp_bf16_d128_q128_kv128; do
  ab_sass "$f" "${fats[@]}"
done
ab_save
ab_el "2. checks"
for t in "$@"; do ab_checks "${build_pack[$t]}"; done
ab_el done
