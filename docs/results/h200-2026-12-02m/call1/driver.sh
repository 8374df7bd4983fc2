#!/usr/bin/env bash
# Session 13, call 1. Pack: .gpupack-m1 (branch s13-test's jars, its engine jar left out) + .varjar/engine-m1-nofatbin.jar
# + sm_90a fatbins: "direct" = s13-test (the 64-row Hopper forward at D = 64 / 128, and the NSA per-block wgmma forward
# writing partial rows from its accumulators), "base" = fwd-q64-d128 (the same 64-row forward, main's NSA kernels).
#  1. bench/gpu/q64-forward.sh (direct jar): SASS, verify (both families, D = 128 / 64), sanitizers, one timing round
#  2. both NSA forward orders on the published G = 16, D = 128 shapes (base), one round
#  3. the direct-store NSA forward: verifies, racecheck, then per-block forward A/B base vs direct, two rounds
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/m1
mkdir -p "$res/bench" "$res/ab"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
export SAW_JAVA_OPTS=-Xmx48g
jar() { # NOFATBIN FATBIN OUT
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
}
jar "$root/.varjar/engine-m1-nofatbin.jar" "$root/.varjar/direct.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar"
ln -s "$pack" /tmp/pack-direct
d=/tmp/pack-base; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
jar "$root/.varjar/engine-m1-nofatbin.jar" "$root/.varjar/base.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
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
el "1. q64 forward"
(cd /tmp && OUT=$res Q64_ROUNDS=1 Q64_PARTS='sass verify timing sanitizer' timeout 380 /tmp/pack-direct/q64-forward.sh)
el "2. NSA orders on the published shapes (base)"
for sh in "1 8192" "1 32768" "1 65536" "2 65536" "4 16384"; do
  left 440 || break
  read -r B T <<<"$sh"
  reps=10; [[ $((B * T)) -gt 65536 ]] && reps=5
  for o in warp block; do
    SAW_NSA_FWD=$o timeout 100 /tmp/pack-base/saw bench --nsa random --batch $B --seq $T --heads 64 --kv-heads 4 --head-dim 128 \
      --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --pass fwd --reps $reps --warmup 3 \
      --out "$res/bench/b${B}t${T}-r1-$o.jsonl" >> "$res/bench.log" 2>&1
  done
done
table "$res/bench" warp block | tee "$res/orders.txt"
el "3. direct store: checks"
vfail=0
for c in "--nsa random --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 4096" \
         "--nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30" \
         "--nsa random --nsa-block 128 --nsa-s 8 --heads 48 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 1100 --softcap 30" \
         "--nsa random --nsa-block 64 --nsa-s 3 --heads 48 --kv-heads 3 --head-dim 128 --dtype bf16 --seq 5000 --batch 2" \
         "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1" \
         "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096" \
         "--nsa random --nsa-block 128 --nsa-s 4 --heads 16 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 77"; do
  left 490 || break
  read -ra a <<<"$c"
  SAW_NSA_FWD=block timeout 60 /tmp/pack-direct/saw verify --backend gpu --pass fwd "${a[@]}" > /tmp/v.log 2>&1; rc=$?
  cat /tmp/v.log >> "$res/direct-verify.log"; [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify direct rc=$rc $(grep -E '^(PASS|FAIL)' /tmp/v.log) $(awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}' /tmp/v.log) :: $c"
done
if left 500; then
  o=$(SAW_NSA_FWD=block timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$pack/runtime/bin/java" -cp "$pack/lib/*" saw.app.Main verify \
      --nsa random --seq 1500 --dtype bf16 --nsa-block 64 --nsa-s 8 --heads 32 --kv-heads 8 --head-dim 128 --backend gpu --pass fwd 2>&1)
  echo "racecheck direct rc=$? $(echo "$o" | grep 'RACECHECK SUMMARY' | tail -1)"
fi
if [[ $vfail == 0 ]]; then
  el "direct store: A/B"
  for r in 1 2; do
    if [[ $r == 2 ]]; then vs="direct base"; else vs="base direct"; fi
    for row in "g16|--seq 32768 --heads 64 --kv-heads 4 --head-dim 128" "g8|--seq 32768 --heads 32 --kv-heads 4 --head-dim 128" \
               "g16d64|--seq 32768 --heads 64 --kv-heads 4 --head-dim 64"; do
      left 570 || break
      IFS='|' read -r tag c <<<"$row"; read -ra a <<<"$c"
      for v in $vs; do
        SAW_NSA_FWD=block timeout 60 /tmp/pack-$v/saw bench --nsa random "${a[@]}" --nsa-s 16 --nsa-block 64 --dtype bf16 \
          --backend gpu --pass fwd --reps 10 --warmup 3 --out "$res/ab/$tag-r$r-$v.jsonl" >> "$res/bench.log" 2>&1
      done
    done
  done
  table "$res/ab" base direct | tee "$res/direct.txt"
fi
el done
cd "$OUT" && tar czf m1-logs.tgz m1 && rm -rf m1/bench m1/ab m1/bench.log m1/q64/results m1/q64/specs m1/q64/run.log m1/direct-verify.log && ls -la "$OUT/m1" "$OUT/m1/q64"
