#!/usr/bin/env bash
# session 10, call 5 (the same pack and main jar as call 4): a longer A/B of the mask prefetch, three interleaved rounds
# of six PARTIAL-heavy rows, 20 timed runs each, forward only
set -uo pipefail
root=$PWD
pack=$root/.nsapack
res=$OUT/j5
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-main
mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.varjar/saw-engine-main.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
cp "$root"/docs/results/h200-2026-12-02j/call4/j4/*.json "$res/"
bench() { # TAG VARIANT D BLOCK SPEC ARGS...
  local tag=$1 var=$2 hd=$3 blk=$4 spec=$5; shift 5
  local p=$pack; [[ $var != new ]] && p=/tmp/pack-$var
  SAW_JAVA_OPTS=-Xmx24g timeout 100 "$p/saw" bench "$spec" "$@" --head-dim $hd --dtype bf16 --block $blk \
    --pass fwd --backend gpu --reps 20 --warmup 5 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
for r in 1 2 3; do
  if (( r % 2 )); then vs="main new"; else vs="new main"; fi
  for v in $vs; do bench docs64-d128-r$r $v 128 128x128 "$res/docs64-32k.json"; done
  for v in $vs; do bench docs8-d128-r$r $v 128 128x128 "$res/docs8-8k.json"; done
  for v in $vs; do bench win1k-d128-r$r $v 128 128x128 "$res/win1k.json"; done
  for v in $vs; do bench win1k-d64-r$r $v 64 128x128 "$res/win1k.json"; done
  for v in $vs; do bench docs8-d256-r$r $v 256 64x64 "$res/docs8-8k.json"; done
  for v in $vs; do bench win1k-d256-r$r $v 256 64x64 "$res/win1k.json"; done
  el "round $r"
done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections, statistics
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    base = tag.rsplit("-r", 1)[0]
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
    if ok: rows[base][var].append(ok[0]["median_ms"])
for base, v in rows.items():
    m, n = v["main"], v["new"]
    ratios = [a / b for a, b in zip(m, n)]
    print(f"{base:12s} main {' '.join(f'{x:.3f}' for x in m)} | new {' '.join(f'{x:.3f}' for x in n)} | main/new per round "
          f"{' '.join(f'{x:.3f}' for x in ratios)} | median {statistics.median(ratios):.3f}")
PY
el done
