#!/usr/bin/env bash
# Session 13, call 2. Pack: .gpupack-m1 + .varjar (as call 1), the engine jar rebuilt with base.fatbin (branch
# fwd-q64-d128: main's kernels plus the 64-row Hopper forward at D = 64 / 128).
#  1. the mma.sync forward at 64x64 (family mma) against the 64-row Hopper one (wgmma-ws) at D = 128
#  2. where a short row's time goes: chunked(C) causal masks (rows of 1 .. C / 128 tiles of 128) at 16K, B=4 H=16,
#     D = 128, 128x128, wgmma-pp and wgmma-ws, against causal
#  3. Nsight Compute on the 128x128 wgmma-pp forward of 64 packed documents in 32K (full set, SASS source page)
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/m2
mkdir -p "$res/bench" "$res/specs"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
python3 - "$root/.varjar/engine-m1-nofatbin.jar" "$root/.varjar/base.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
spec() { # NAME S B H MASK_JSON
  cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 128, "kv": 128 }, "mask": $5 }
JSON
}
CAUSAL='{ "causal": { "offset": 0 } }'
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
spec docs64-32k 32768 1 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$L$((32768 - SUM))] } } ] }"
spec causal-8k 8192 4 16 "$CAUSAL"
spec causal-16k 16384 4 16 "$CAUSAL"
for c in 128 256 512 1024 2048; do spec chunked$c-16k 16384 4 16 "{ \"chunked_causal\": { \"chunk\": $c } }"; done
bench() { # TAG FAMILY BLOCKS SPEC
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$2" timeout -k 5 100 "$pack/saw" bench "$res/specs/$4.json" --block "$3" --head-dim 128 \
    --pass fwd --reps 10 --warmup 3 --backend gpu --out "$res/bench/$1.jsonl" >>"$res/bench.log" 2>&1 || echo "bench $1 rc=$?"
}
el "1. mma.sync against the 64-row Hopper forward at 64x64"
for sp in causal-8k docs64-32k; do bench "$sp-mma" mma 64x64 "$sp"; bench "$sp-ws" wgmma-ws 64x64 "$sp"; done
el "2. chunked rows"
for sp in chunked128-16k chunked256-16k chunked512-16k chunked1024-16k chunked2048-16k causal-16k; do
  bench "$sp-pp" wgmma-pp 128x128 "$sp"; bench "$sp-ws" wgmma-ws 128x128 "$sp"
done
python3 - "$res/bench" <<'PY' | tee "$res/table.txt"
import glob, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    for r in (json.loads(l) for l in open(f) if l.strip()):
        if "median_ms" in r:
            print(f'{os.path.basename(f)[:-6]:24s} {r["tile"]:8s} {r["median_ms"]:8.3f} ms {r["useful_tflops"]:6.1f} useful '
                  f'{r["computed_tflops"]:6.1f} computed  tiles full {r["tiles_full"]} partial {r["tiles_partial"]}  {r["kernel"]}')
PY
el "3. ncu, docs64 128x128 wgmma-pp"
SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=wgmma-pp" timeout -k 5 200 ncu --set full --import-source no -k regex:fwd_wgmmapp \
  --launch-skip 2 --launch-count 1 -f -o "$res/prof-docs64" "$pack/saw" bench "$res/specs/docs64-32k.json" --block 128x128 \
  --head-dim 128 --pass fwd --reps 1 --warmup 2 --backend gpu --out "$res/prof-bench.jsonl" > "$res/prof.log" 2>&1; echo "ncu rc=$?"
tail -5 "$res/prof.log"
ncu -i "$res/prof-docs64.ncu-rep" --page details --print-details all > "$res/prof-docs64-details.txt" 2>&1
ncu -i "$res/prof-docs64.ncu-rep" --page source --csv --print-source sass > "$res/prof-docs64-source.csv" 2>&1
ncu -i "$res/prof-docs64.ncu-rep" --page raw --csv > "$res/prof-docs64-raw.csv" 2>&1
grep -E "Duration|Throughput|Stall|Pipe|Issued|Eligible|Warp Cycles" "$res/prof-docs64-details.txt" | head -50
el done
cd "$OUT" && tar czf m2-logs.tgz --exclude="*.ncu-rep" m2 && rm -rf m2/bench m2/specs m2/bench.log m2/prof-docs64.ncu-rep m2/prof-docs64-source.csv m2/prof-docs64-raw.csv m2/prof-bench.jsonl && ls -la "$OUT/m2"
