#!/usr/bin/env bash
# session 10, call 2 (pack at branch nsa-wgmma-bwd): the NSA backward with warpgroup MMA at block 64
# (nsa_bwd_wgmma_*) checked (SASS, nsa-run.sh's verify matrix with the backward on auto = wgmma at block 64 and on mma
# where named, compute-sanitizer memcheck / racecheck / synccheck on both backwards, at the same time as the verify)
# and timed side by side with the chunked mma.sync backward and fla-core 0.5.2 on the published shapes
set -uo pipefail
root=$PWD
pack=$root/.nsapack
res=$OUT/j2
mkdir -p "$res"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
mkdir -p /tmp/site && python3 -m pip install --no-deps --target /tmp/site -q "$root"/.whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
python3 -c "import zipfile,glob; z=zipfile.ZipFile(glob.glob('$pack/lib/saw-engine-*.jar')[0]); open('/tmp/saw.fatbin','wb').write(z.read('saw/kernels/saw_attention.fatbin'))"
for f in nsa_bwd_wgmma_bf16_d128_b64 nsa_bwd_wgmma_bf16_d64_b64 nsa_bwd_wgmma_fp16_d128_b64_softcap; do
  cuobjdump -sass -fun $f /tmp/saw.fatbin > "$res/sass-$f.txt" 2>&1
  echo "sass $f: $(grep -c HGMMA "$res/sass-$f.txt") HGMMA, $(grep -c 'RED\.E\.ADD\|REDG' "$res/sass-$f.txt") RED, $(grep -cE 'STL|LDL' "$res/sass-$f.txt") local"
done
el "verify and sanitizers (at the same time)"
( OUT=$res/v NSA_PARTS="verify" timeout -k 5 260 bash "$pack/nsa-run.sh" > "$res/verify.txt" 2>&1 ) &
( OUT=$res/s NSA_PARTS="sanitizer" NSA_SAN_TOOLS="memcheck racecheck synccheck" timeout -k 5 260 bash "$pack/nsa-run.sh" > "$res/san.txt" 2>&1 ) &
wait
grep -A40 "== summary" "$res/verify.txt" | head -45
grep -A20 "== summary" "$res/san.txt"
grep -B2 -A12 "FAIL" "$res/v/nsa/verify.log" | head -60
el "compare"
OUT=$res/c NSA_PARTS="compare" NSA_COMPARE_ORDERS=warp NSA_BWD_KERNELS="wgmma mma" NSA_SHAPES=all NSA_COMPARE_SECONDS=240 \
  NSA_COMPARE_TIMEOUT=290 timeout -k 5 300 bash "$pack/nsa-run.sh" > "$res/compare.txt" 2>&1
grep -A30 "== summary" "$res/compare.txt"
el done
