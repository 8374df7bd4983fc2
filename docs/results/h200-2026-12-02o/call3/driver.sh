#!/usr/bin/env bash
# Session 15, call 3. (1) main with the kept row max at D = 256 (the real build, bench/gpu-pack.sh .gpupack-o2, libjvm
# stripped): frontier-table.sh (issue 12's rows beside cuDNN), d256-fwd128.sh (verify, sanitizers, D = 256 forward
# timing beside cuDNN), d256-bwd-wgmma.sh (D = 256 forward + backward beside FlexAttention and cuDNN). (2) If time is
# left: the tile's row max as a tree in the exact-max softmax at D = 64 / 128 (`tree` = .varjar/tree.fatbin, sm_90a
# only, same nvcc flags as the build) against the pack's own engine jar (`main`), four rotated rounds.
set -uo pipefail
root=$PWD
pack=$root/.gpupack-o2
exec > >(tee "$OUT/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
el "1. frontier table"
OUT=$OUT timeout -k 5 200 "$pack/frontier-table.sh" 2>&1 | tail -15
el "2. d256-fwd128"
OUT=$OUT timeout -k 5 150 "$pack/d256-fwd128.sh" 2>&1 | tail -30
el "3. d256-bwd-wgmma"
OUT=$OUT timeout -k 5 150 "$pack/d256-bwd-wgmma.sh" 2>&1 | tail -30
el "4. tree A/B"
res=$OUT/tree
mkdir -p "$res/ab" "$res/specs"
for v in main tree; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
done
rm -f /tmp/pack-tree/lib/saw-engine-*.jar
python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/tree.fatbin" /tmp/pack-tree/lib/saw-engine-0.1.0-SNAPSHOT.jar <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
vfail=0
verify() { # OPTS ARGS...
  local opts=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g $opts" timeout -k 5 90 /tmp/pack-tree/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify tree [$opts] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify tree rc=$rc [$opts] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
for fam in wgmma-pp wgmma-ws; do
  for D in 64 128; do
    verify -Dsaw.kernel.fwd=$fam preset:causal --seq 4096 --heads 8 --kv-heads 2 --head-dim $D --dtype bf16 --scale 1 --pass fwd
    verify -Dsaw.kernel.fwd=$fam 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim $D --block 128x128 --softcap 30
  done
done
bench() { # TAG VARIANT SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=wgmma-pp" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$3.json" --dtype bf16 --pass fwd \
    --reps 20 --warmup 3 --backend gpu --block 128x128 --out "$res/ab/$1-$2.jsonl" $4 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
ROWS=("causal-8k|--head-dim 64" "causal-16k|--head-dim 64" "gqa-32k|--head-dim 64 --kv-heads 8"
      "causal-8k|--head-dim 128" "causal-16k|--head-dim 128" "gqa-32k|--head-dim 128 --kv-heads 8" "docs64-32k|--head-dim 128"
      "docs8-16k|--head-dim 128" "window1024-16k|--head-dim 128")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3 4; do
    case $r in 1|3) vs="main tree";; 2|4) vs="tree main";; esac
    for row in "${ROWS[@]}"; do
      left 570 || break
      IFS='|' read -r sp extra <<<"$row"
      dtag=$(echo "$extra" | sed -E 's/.*--head-dim ([0-9]+).*/d\1/')
      for v in $vs; do bench "$dtag-$sp-r$r" "$v" "$sp" "$extra"; done
    done
    el "round $r done"
  done
fi
python3 - "$res/ab" <<'PY' | tee "$res/ab.txt"
import collections, glob, json, os, statistics, sys
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    if ok: rows[tag][var] = (ok[-1]["median_ms"], ok[-1]["useful_tflops"], ok[-1].get("kernel", "?"))
summary = collections.defaultdict(lambda: collections.defaultdict(list))
for tag in sorted(rows):
    v = rows[tag]
    if "main" in v and "tree" in v:
        x = v["main"][0] / v["tree"][0]
        print(f'{tag:26s}  main {v["main"][0]:7.3f} ms {v["main"][1]:6.1f}  tree {v["tree"][0]:7.3f} ms {v["tree"][1]:6.1f}  {x:.3f}x  [{v["main"][2]}]')
        row = tag.rsplit("-r", 1)[0]
        summary[row]["x"].append(x); summary[row]["main"].append(v["main"][1]); summary[row]["tree"].append(v["tree"][1])
print()
print("row: median over rounds of main time / tree time (min-max); median TFLOP/s")
for row, s in sorted(summary.items()):
    print(f'{row:22s} {statistics.median(s["x"]):.3f}x ({min(s["x"]):.3f}-{max(s["x"]):.3f})  main {statistics.median(s["main"]):.1f}  tree {statistics.median(s["tree"]):.1f}')
PY
el done
cd "$OUT" && tar czf o3-logs.tgz frontier d256f d256b tree 2>/dev/null; rm -rf tree/ab tree/specs; ls -la "$OUT"
