#!/usr/bin/env bash
# session 12, call 5 (pack .gpupack-l4 at main 7fdf314, its engine jar rebuilt from a fatbin-less jar + the sm_90a fatbin of 79bf92e as
# "base"; "chains" = the same pack with the
# sm_90a fatbin of branch nsa-fwd-chains: the per-block wgmma forward reads the next step's tokens before S is issued,
# and its row max and sum run as four chains): gate + verifies, then per-block forward A/B, two rounds
set -uo pipefail
root=$PWD
pack=$root/.gpupack-l4
res=$OUT/l5
mkdir -p "$res/bench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
export SAW_JAVA_OPTS=-Xmx24g
jar() { # NOFATBIN FATBIN OUT
  python3 - "$1" "$2" "$3" <<'PY2'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY2
}
jar "$root/.varjar/engine-l4-nofatbin.jar" "$root/.varjar/base79.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar"
ln -s "$pack" /tmp/pack-base
d=/tmp/pack-chains; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
jar "$root/.varjar/engine-l4-nofatbin.jar" "$root/.varjar/chains.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
vfail=0
for c in "--nsa random --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 4096" \
         "--nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30" \
         "--nsa random --nsa-block 128 --nsa-s 8 --heads 48 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 1100 --softcap 30" \
         "--nsa random --nsa-block 64 --nsa-s 3 --heads 48 --kv-heads 3 --head-dim 128 --dtype bf16 --seq 5000 --batch 2" \
         "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1" \
         "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096" \
         "--nsa random --nsa-block 128 --nsa-s 4 --heads 16 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 77"; do
  read -ra a <<<"$c"
  SAW_NSA_FWD=block timeout 60 /tmp/pack-chains/saw verify --backend gpu --pass fwd "${a[@]}" > /tmp/v.log 2>&1; rc=$?
  cat /tmp/v.log >> "$res/chains-verify.log"; [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify chains rc=$rc $(grep -E '^(PASS|FAIL)' /tmp/v.log) $(awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}' /tmp/v.log) :: $c"
  [[ $rc == 0 || $vfail -lt 2 ]] || break
done
o=$(SAW_NSA_FWD=block timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$d/runtime/bin/java" -cp "$d/lib/*" saw.app.Main verify \
    --nsa random --seq 1500 --dtype bf16 --nsa-block 64 --nsa-s 8 --heads 32 --kv-heads 8 --head-dim 128 --backend gpu --pass fwd 2>&1)
echo "racecheck chains rc=$? $(echo "$o" | grep 'RACECHECK SUMMARY' | tail -1)"
el "A/B"
rows=(
  "g16|--seq 32768 --heads 64 --kv-heads 4 --head-dim 128"
  "g8|--seq 32768 --heads 32 --kv-heads 4 --head-dim 128"
  "g4|--seq 32768 --heads 16 --kv-heads 4 --head-dim 128"
  "g16d64|--seq 32768 --heads 64 --kv-heads 4 --head-dim 64")
if [[ $vfail == 0 ]]; then
  for r in 1 2; do
    if [[ $r == 2 ]]; then vs="chains base"; else vs="base chains"; fi
    for row in "${rows[@]}"; do
      IFS='|' read -r tag c <<<"$row"; read -ra a <<<"$c"
      for v in $vs; do
        SAW_NSA_FWD=block timeout 100 /tmp/pack-$v/saw bench --nsa random "${a[@]}" --nsa-s 16 --nsa-block 64 --dtype bf16 \
          --backend gpu --pass fwd --reps 10 --warmup 3 --out "$res/bench/$tag-r$r-$v.jsonl" >> "$res/bench.log" 2>&1
      done
    done
  done
  SAW_NSA_FWD=warp timeout 100 /tmp/pack-base/saw bench --nsa random --seq 32768 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 \
    --backend gpu --pass fwd --reps 10 --warmup 3 --out "$res/bench/g16warp-r1-base.jsonl" >> "$res/bench.log" 2>&1
  python3 - "$res/bench" <<'PY' | tee "$res/table.txt"
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    rows[tag][var] = (ok[-1]["median_ms"], ok[-1]["useful_tflops"], ok[-1].get("kernel")) if ok else None
for tag in sorted(rows):
    v = rows[tag]; o = v.get("base")
    print(f"{tag:16s}", " ".join(f"{k} {v[k][0]:.3f} ms {v[k][1]:6.1f} {o[0] / v[k][0]:.3f}x" for k in ("base", "chains") if v.get(k) and o), "|", o[2] if o else "")
PY
fi
el done
cd "$OUT" && tar czf l5-logs.tgz l5 && rm -rf l5/bench l5/bench.log && ls -la "$OUT" "$OUT/l5"
