#!/usr/bin/env bash
# session 12, call 3 (pack .gpupack-l3 at main 488c157, its engine jar rebuilt here from .varjar/engine-l3-nofatbin.jar
# + an sm_90a fatbin: "base" = main's kernels (the per-block NSA kernels with row cursors), "m2" = branch
# nsa-merge-early, 5d7ccbb (nsa_merge issues the partial-row loads before the (max, sum) chain resolves)):
#  1. checks of m2 (merge paths: per-block order at G 1-48, S up to 40, D 64/128, fp16/bf16, softcap), SASS of its merge
#  2. forward A/B base vs m2 on the per-block order, two rounds
#  3. saw (base) vs fla-core 0.5.2 on the published shapes: nsa-run.sh compare, orders warp and block, wgmma family
set -uo pipefail
root=$PWD
pack=$root/.gpupack-l3
res=$OUT/l3
mkdir -p "$res/bench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
export SAW_JAVA_OPTS=-Xmx24g
jar() { # NOFATBIN FATBIN OUT
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
}
jar "$root/.varjar/engine-l3-nofatbin.jar" "$root/.varjar/base.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar"
ln -s "$pack" /tmp/pack-base
d=/tmp/pack-m2; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
jar "$root/.varjar/engine-l3-nofatbin.jar" "$root/.varjar/merge2.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
cuobjdump -sass -fun nsa_merge_bf16_d128 "$root/.varjar/merge2.fatbin" > "$res/merge2-sass.txt" 2>&1
cuobjdump -sass -fun nsa_merge_bf16_d128 "$root/.varjar/base.fatbin" > "$res/base-merge-sass.txt" 2>&1
python3 - "$res" <<'PY'
import sys, re
for v in ("base-merge", "merge2"):
    lines = [l for l in open(f"{sys.argv[1]}/{v}-sass.txt") if re.search(r"/\*[0-9a-f]{4}\*/", l)]
    ops = [re.sub(r"^.*\*/\s*", "", l).split()[0] if re.sub(r"^.*\*/\s*", "", l).split() else "" for l in lines]
    ops = [o if not o.startswith("@") else "" for o in ops]
    first_shfl = next((i for i, l in enumerate(lines) if "SHFL" in l), -1)
    ldg_before = sum(1 for l in lines[:first_shfl] if "LDG" in l)
    print(f"{v}: {len(lines)} instructions, LDG {sum('LDG' in l for l in lines)}, LDG before the first SHFL {ldg_before}")
PY
el "checks (m2)"
vfail=0
for c in "--nsa random --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 4096" \
         "--nsa random --nsa-block 32 --nsa-s 40 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 3000" \
         "--nsa random --nsa-block 64 --nsa-s 4 --heads 8 --kv-heads 1 --head-dim 64 --dtype fp16 --seq 1500 --softcap 20" \
         "--nsa random --nsa-block 128 --nsa-s 8 --heads 48 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 1100 --softcap 30" \
         "--nsa random --nsa-block 64 --nsa-s 32 --heads 4 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1" \
         "--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096" \
         "and(causal,docs(700,900,400)) --nsa mask --seq 2000 --block 64x64 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16"; do
  read -ra a <<<"$c"
  SAW_NSA_FWD=block timeout 60 /tmp/pack-m2/saw verify --backend gpu --pass fwd "${a[@]}" > /tmp/v.log 2>&1; rc=$?
  cat /tmp/v.log >> "$res/m2-verify.log"; [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify m2 rc=$rc $(grep -E '^(PASS|FAIL)' /tmp/v.log) $(awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}' /tmp/v.log) :: $c"
done
o=$(SAW_NSA_FWD=block timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/runtime/bin/java" -cp "$d/lib/*" saw.app.Main verify \
    --nsa random --seq 3000 --dtype bf16 --nsa-block 32 --nsa-s 40 --heads 8 --kv-heads 2 --head-dim 64 --backend gpu --pass fwd 2>&1)
echo "memcheck m2 rc=$? $(echo "$o" | grep 'ERROR SUMMARY' | tail -1)"
el "A/B base vs m2"
rows=(
  "g16|--seq 32768 --heads 64 --kv-heads 4 --head-dim 128"
  "g8|--seq 32768 --heads 32 --kv-heads 4 --head-dim 128"
  "g4|--seq 32768 --heads 16 --kv-heads 4 --head-dim 128"
  "g16d64|--seq 32768 --heads 64 --kv-heads 4 --head-dim 64"
  "g16-64k|--seq 65536 --heads 64 --kv-heads 4 --head-dim 128")
if [[ $vfail == 0 ]]; then
  for r in 1 2; do
    if [[ $r == 2 ]]; then vs="m2 base"; else vs="base m2"; fi
    for row in "${rows[@]}"; do
      IFS='|' read -r tag c <<<"$row"; read -ra a <<<"$c"
      for v in $vs; do
        SAW_NSA_FWD=block timeout 100 /tmp/pack-$v/saw bench --nsa random "${a[@]}" --nsa-s 16 --nsa-block 64 --dtype bf16 \
          --backend gpu --pass fwd --reps 10 --warmup 3 --out "$res/bench/$tag-r$r-$v.jsonl" >> "$res/bench.log" 2>&1
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
    v = rows[tag]; o = v.get("base")
    print(f"{tag:16s}", " ".join(f"{k} {v[k][0]:.3f} ms {v[k][1]:6.1f} {o[0] / v[k][0]:.3f}x" for k in ("base", "m2") if v.get(k) and o))
PY
fi
el "compare with fla (base)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$root"/.whl/*.whl && export PYTHONPATH=/tmp/site
( OUT=$res NSA_PARTS=compare NSA_COMPARE_ORDERS="warp block" NSA_FAMILIES="wgmma" NSA_SHAPES=all NSA_COMPARE_SECONDS=230 \
  NSA_COMPARE_TIMEOUT=270 timeout -k 5 280 bash "$pack/nsa-run.sh" > "$res/compare.txt" 2>&1 )
cat "$res/nsa/compare-summary.txt"
el done
cd "$OUT" && tar czf l3-logs.tgz l3 && rm -rf l3/bench l3/bench.log l3/nsa/saw-bench.jsonl l3/nsa/compare.log l3/nsa/summary.txt l3/m2-verify.log l3/base-merge-sass.txt && ls -la "$OUT" "$OUT/l3" "$OUT/l3/nsa"
