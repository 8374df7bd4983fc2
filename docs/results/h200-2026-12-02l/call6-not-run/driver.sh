#!/usr/bin/env bash
# session 12, call 6 (not run: no device time left; kept for the next session). Pack: .gpupack-l4 (main 7fdf314's
# jars, its engine jar left out) + .varjar/engine-l4-nofatbin.jar + sm_90a fatbins: "base" = main 753f645's kernels
# (.varjar/base753.fatbin), "direct" = branch nsa-direct-store (.varjar/direct.fatbin: the per-block wgmma forward
# writes partial rows straight from its accumulators, no staging, no barrier).
#  1. both NSA forward orders on every published G = 16, D = 128 shape (base), two rounds alternating: does the
#     per-block order win everywhere, so that auto could take it up to G = 16 at D = 128?
#  2. direct: gate, verifies, racecheck, then per-block forward A/B base vs direct, two rounds
set -uo pipefail
root=$PWD
pack=$root/.gpupack-l4
res=$OUT/l6
mkdir -p "$res/bench" "$res/ab"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
export SAW_JAVA_OPTS=-Xmx48g
jar() { # NOFATBIN FATBIN OUT
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
}
jar "$root/.varjar/engine-l4-nofatbin.jar" "$root/.varjar/base753.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar"
ln -s "$pack" /tmp/pack-base
d=/tmp/pack-direct; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
jar "$root/.varjar/engine-l4-nofatbin.jar" "$root/.varjar/direct.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
table() { # DIR REF VARIANTS...
  python3 - "$@" <<'PY'
import json, sys, glob, os, collections
d, ref, vs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(d + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    rows[tag][var] = (ok[-1]["median_ms"], ok[-1]["useful_tflops"], ok[-1].get("kernel")) if ok else None
for tag in sorted(rows):
    v = rows[tag]; o = v.get(ref)
    print(f"{tag:18s}", " ".join(f"{k} {v[k][0]:.3f} ms {v[k][1]:6.1f} {o[0] / v[k][0]:.3f}x" for k in [ref] + vs if v.get(k) and o))
PY
}
el "1. orders on the published shapes (base)"
for r in 1 2; do
  if [[ $r == 2 ]]; then os="block warp"; else os="warp block"; fi
  for sh in "1 8192" "1 32768" "1 65536" "2 65536" "4 16384"; do
    read -r B T <<<"$sh"
    reps=10; [[ $((B * T)) -gt 65536 ]] && reps=5
    for o in $os; do
      SAW_NSA_FWD=$o timeout 100 /tmp/pack-base/saw bench --nsa random --batch $B --seq $T --heads 64 --kv-heads 4 --head-dim 128 \
        --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --pass fwd --reps $reps --warmup 3 \
        --out "$res/bench/b${B}t${T}-r$r-$o.jsonl" >> "$res/bench.log" 2>&1
    done
  done
done
table "$res/bench" warp block | tee "$res/orders.txt"
el "2. direct store: checks"
vfail=0
for c in "--nsa random --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 4096" \
         "--nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30" \
         "--nsa random --nsa-block 128 --nsa-s 8 --heads 48 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 1100 --softcap 30" \
         "--nsa random --nsa-block 64 --nsa-s 3 --heads 48 --kv-heads 3 --head-dim 128 --dtype bf16 --seq 5000 --batch 2" \
         "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1" \
         "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096" \
         "--nsa random --nsa-block 128 --nsa-s 4 --heads 16 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 77"; do
  read -ra a <<<"$c"
  SAW_NSA_FWD=block timeout 60 /tmp/pack-direct/saw verify --backend gpu --pass fwd "${a[@]}" > /tmp/v.log 2>&1; rc=$?
  cat /tmp/v.log >> "$res/direct-verify.log"; [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify direct rc=$rc $(grep -E '^(PASS|FAIL)' /tmp/v.log) $(awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}' /tmp/v.log) :: $c"
  [[ $rc == 0 || $vfail -lt 2 ]] || break
done
o=$(SAW_NSA_FWD=block timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$d/runtime/bin/java" -cp "$d/lib/*" saw.app.Main verify \
    --nsa random --seq 1500 --dtype bf16 --nsa-block 64 --nsa-s 8 --heads 32 --kv-heads 8 --head-dim 128 --backend gpu --pass fwd 2>&1)
echo "racecheck direct rc=$? $(echo "$o" | grep 'RACECHECK SUMMARY' | tail -1)"
if [[ $vfail == 0 ]]; then
  el "direct store: A/B"
  for r in 1 2; do
    if [[ $r == 2 ]]; then vs="direct base"; else vs="base direct"; fi
    for row in "g16|--seq 32768 --heads 64 --kv-heads 4 --head-dim 128" "g8|--seq 32768 --heads 32 --kv-heads 4 --head-dim 128" \
               "g4|--seq 32768 --heads 16 --kv-heads 4 --head-dim 128" "g16d64|--seq 32768 --heads 64 --kv-heads 4 --head-dim 64"; do
      IFS='|' read -r tag c <<<"$row"; read -ra a <<<"$c"
      for v in $vs; do
        SAW_NSA_FWD=block timeout 100 /tmp/pack-$v/saw bench --nsa random "${a[@]}" --nsa-s 16 --nsa-block 64 --dtype bf16 \
          --backend gpu --pass fwd --reps 10 --warmup 3 --out "$res/ab/$tag-r$r-$v.jsonl" >> "$res/bench.log" 2>&1
      done
    done
  done
  table "$res/ab" base direct | tee "$res/direct.txt"
fi
el done
cd "$OUT" && tar czf l6-logs.tgz l6 && rm -rf l6/bench l6/ab l6/bench.log && ls -la "$OUT/l6"
