#!/usr/bin/env bash
# Issue 6, Hopper forward: SASS check, saw verify of the Hopper forward families over a matrix, compute-sanitizer,
# an ncu stall profile of one causal launch, then the forward timing of every family against mma.sync.
# FWD_VARIANTS picks the families verified (default: the warp-specialised ones). Runs from a folder made by
# bench/gpu-pack.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
java="$here/runtime/bin/java"
: >"$out/summary.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader || true

# 1. SASS: HGMMA / HMMA / local-memory instructions per forward kernel of the sm_90a image
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  "$here"/lib/saw-engine-*.jar > /tmp/saw.fatbin || unzip -p "$here"/lib/saw-engine-*.jar saw/kernels/saw_attention.fatbin > /tmp/saw.fatbin
cuobjdump --dump-sass /tmp/saw.fatbin > "$out/sass.txt" 2>&1 || echo "cuobjdump failed"
awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3} fn ~ /^fwd_/ && arch=="sm_90a" {
       if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /HMMA/) hm[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-36s HGMMA %4d  HMMA %4d  local %3d\n", f, hg[f], hm[f], lm[f] }' "$out/sass.txt" \
  | sort | grep -E 'wgmma|(bf16|fp16)_d128_q128_kv(64|128) ' > "$out/sass-summary.txt"
cat "$out/sass-summary.txt"
gzip -f "$out/sass.txt"

# 2. saw verify, Hopper forward families (128x128 tiles; the backend falls back to mma.sync elsewhere)
log=$out/verify.log; : >"$log"
. "$here/hopper-lib.sh"
variants=(${FWD_VARIANTS:-wgmma-ws wgmma-pp})
verify_matrix fwd "$log" "${variants[@]}"
echo "${variants[*]} verify matrix: $verify_pass passed, $verify_fail failed" | tee -a "$log"
for f in "${verify_failed[@]}"; do echo "  failed: $f"; done
# the default (mma.sync) path is untouched: one forward+backward check
o=$(timeout 90 "$here/saw" verify causal --seq 1000 --head-dim 128 --dtype bf16 --heads 4 --block 128x64 --pass fwd,bwd 2>&1)
echo "mma default path: rc=$? $(echo "$o" | grep -cE ' ok$| pass') outputs"; echo "$o" >>"$log"

# 3. ncu: speed of light and warp stalls of one causal S=8192 D=128 forward launch per family
if [[ -z ${SAW_SKIP_NCU:-} ]]; then
  for v in ${variants[@]}; do
    ncu_causal fwd "$v" "$out/ncu-$v.txt" --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      --section Occupancy
    echo "ncu $v rc=$? $(grep -E 'Duration|Compute \(SM\) Throughput' "$out/ncu-$v.txt" | tr -s ' ' | tr '\n' ' ')"
  done
fi

# 4. timing: mma.sync 128x64 vs every Hopper family at 128x128, B=4 H=16 bf16, D=128 then D=64
timeout 240 "$java" -cp "$here/lib/*" saw.app.cli.HopperTiming 8192 16384 2>&1 | tee "$out/timing.log" | grep -E "^device|Exception|rror"
echo "timing rc=$?"
if [[ -z ${SAW_SKIP_D64:-} ]]; then
  timeout 200 "$java" -Dsaw.timing.d=64 -cp "$here/lib/*" saw.app.cli.HopperTiming 8192 16384 > "$out/timing-d64.log" 2>&1
  echo "timing D=64 rc=$?"
fi

# 5. compute-sanitizer on a small case (5 q-tiles, GQA, documents with padding)
sanitize_small fwd "$out/sanitizer.log" "$out/summary.txt" \
  ${SANITIZE:-wgmma-ws:memcheck wgmma-pp:memcheck wgmma-pp:racecheck wgmma-pp:synccheck}
echo; cat "$out/sass-summary.txt"; echo "${variants[*]} verify matrix: $verify_pass passed, $verify_fail failed"
[[ -f $out/timing-d64.log ]] && awk '/^mask/{p=1} p' "$out/timing-d64.log" | grep -E 'wgmma|mask' | head -50
awk '/^mask/{p=1} p' "$out/timing.log" | tail -61
