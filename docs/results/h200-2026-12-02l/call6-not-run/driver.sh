#!/usr/bin/env bash
# session 12, call 6 (pack .gpupack-l4, engine jar = fatbin-less jar + the sm_90a fatbin of branch nsa-fwd-chains): the
# forward orders at G = 16, D = 128 on fla's published shapes, warp against per-block, two rounds alternating: does
# the per-block order now win there (the auto rule picks warp above G = 8)?
set -uo pipefail
root=$PWD
pack=$root/.gpupack-l4
res=$OUT/l6
mkdir -p "$res/bench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
export SAW_JAVA_OPTS=-Xmx48g
python3 - "$root/.varjar/engine-l4-nofatbin.jar" "$root/.varjar/chains.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
for r in 1 2; do
  if [[ $r == 2 ]]; then os="block warp"; else os="warp block"; fi
  for sh in "1 8192" "1 32768" "1 65536" "2 65536" "4 16384"; do
    read -r B T <<<"$sh"
    reps=10; [[ $((B * T)) -gt 65536 ]] && reps=5
    for o in $os; do
      SAW_NSA_FWD=$o timeout 100 "$pack/saw" bench --nsa random --batch $B --seq $T --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 \
        --nsa-block 64 --dtype bf16 --backend gpu --pass fwd --reps $reps --warmup 3 --out "$res/bench/b${B}t${T}-r$r-$o.jsonl" >> "$res/bench.log" 2>&1
    done
  done
done
python3 - "$res/bench" <<'PY' | tee "$res/table.txt"
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    rows[tag][var] = (ok[-1]["median_ms"], ok[-1]["useful_tflops"], ok[-1].get("kernel")) if ok else None
for tag in sorted(rows):
    v = rows[tag]; o = v.get("warp")
    print(f"{tag:16s}", " ".join(f"{k} {v[k][0]:.3f} ms {v[k][1]:6.1f} {o[0] / v[k][0]:.3f}x" for k in ("warp", "block") if v.get(k) and o))
PY
el done
cd "$OUT" && tar czf l6-logs.tgz l6 && rm -rf l6/bench && ls -la "$OUT/l6"
