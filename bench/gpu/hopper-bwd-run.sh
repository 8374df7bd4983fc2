#!/usr/bin/env bash
# Issue 6, Hopper backward: SASS check of the Hopper backward kernels (bwd_wgmmaws_*), saw verify of every Hopper
# backward family in BWD_VARIANTS (default "wgmma-ws", the one this build has) over a matrix (forward + backward,
# 128x128 layouts; the forward is whatever -Dsaw.kernel.fwd picks), compute-sanitizer on wgmma-ws, then the mma.sync
# vs Hopper backward timing (HopperTiming). Runs from a folder made by bench/gpu-pack.sh; builds nothing.
# Usage: [BWD_VARIANTS="wgmma-ws"] hopper-bwd-run.sh [check|timing|all]  (check = SASS + verify + sanitizer)
set -uo pipefail
what=${1:-all}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
java="$here/runtime/bin/java"
: >"$out/bwd-summary.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader || true

if [[ $what != timing ]]; then
# 1. SASS: HGMMA / HMMA / local-memory instructions per backward kernel of the sm_90a image
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  "$here"/lib/saw-engine-*.jar > /tmp/saw.fatbin || unzip -p "$here"/lib/saw-engine-*.jar saw/kernels/saw_attention.fatbin > /tmp/saw.fatbin
cuobjdump --dump-sass /tmp/saw.fatbin > /tmp/sass.txt 2>&1 || echo "cuobjdump failed"
awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3} fn ~ /^bwd_/ && arch=="sm_90a" {
       if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /HMMA/) hm[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-40s HGMMA %4d  HMMA %4d  local %3d\n", f, hg[f], hm[f], lm[f] }' /tmp/sass.txt \
  | sort | grep -E 'wgmma|_q128_kv128 ' | tee "$out/bwd-sass-summary.txt"

# 2. saw verify, forward + backward with 128x128 tiles: each Hopper backward family (the backend falls back elsewhere)
log=$out/bwd-verify.log; : >"$log"
. "$here/hopper-lib.sh"
variants=(${BWD_VARIANTS:-wgmma-ws})
verify_matrix bwd "$log" "${variants[@]}"
verify1 bwd mma "$log" causal --seq 1000 --head-dim 128 --dtype bf16 --heads 4
echo "Hopper backward verify matrix (${variants[*]}): $verify_pass passed, $verify_fail failed" | tee -a "$log" "$out/bwd-summary.txt"
for f in "${verify_failed[@]}"; do echo "  failed: $f"; done | tee -a "$out/bwd-summary.txt"

# 3. compute-sanitizer on the warp-specialised backward, a small case (5 q-tiles, GQA, documents with padding rows
# that attend nothing; kv-tiles with many steps wrap the 3-stage ring)
sanitize_small bwd "$out/bwd-sanitizer.log" "$out/bwd-summary.txt" wgmma-ws:memcheck wgmma-ws:racecheck wgmma-ws:synccheck
fi
[[ $what == check ]] && exit 0

# 4. timing (B=4 H=16 bf16, D=128 then D=64): mma.sync and wgmma-ws backward at 128x128, same run
timeout 360 "$java" -Dsaw.timing.pass=bwd -cp "$here/lib/*" saw.app.cli.HopperTiming 8192 16384 > "$out/bwd-timing.log" 2>&1
echo "timing rc=$?"
if [[ -z ${SAW_SKIP_D64:-} ]]; then
  timeout 300 "$java" -Dsaw.timing.pass=bwd -Dsaw.timing.d=64 -cp "$here/lib/*" saw.app.cli.HopperTiming 8192 16384 > "$out/bwd-timing-d64.log" 2>&1
  echo "timing D=64 rc=$?"
fi
echo; cat "$out/bwd-summary.txt"
awk '/^mask/{p=1} p' "$out"/bwd-timing*.log
