#!/usr/bin/env bash
# Nsight Compute, full set, on one causal S=8192 D=128 launch of each kernel family named (default wgmma-pp): the
# details page and the per-SASS-instruction source page (warp stall samples) as text under $OUT. PROFILE_PASS=bwd
# profiles the backward's main kernel of the named backward families instead. Runs from a folder made by
# bench/gpu-pack.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
pass=${PROFILE_PASS:-fwd}
. "$here/hopper-lib.sh"
for v in "${@:-wgmma-pp}"; do
  ncu_causal "$pass" "$v" "$out/prof-$v.log" --set full --import-source no -f -o "$out/prof-$v"
  echo "ncu $v rc=$?"
  ncu -i "$out/prof-$v.ncu-rep" --page details --print-details all >"$out/prof-$v-details.txt" 2>&1
  ncu -i "$out/prof-$v.ncu-rep" --page source --csv --print-source sass >"$out/prof-$v-source.csv" 2>&1
  gzip -f "$out/prof-$v-source.csv"
  grep -E "Duration|Throughput|Stall|Pipe|Bank|Issued" "$out/prof-$v-details.txt" | head -60
done
