#!/usr/bin/env bash
# Session 18, call 3: branch nb18, the PARTIAL tiles' row spans through two slots of their own (the k-th PARTIAL tile
# of the CTA in slot k % 2), stored by the producer's first warp and ordered by named barriers (per slot and consumer
# warpgroup: bar.arrive by the producer / bar.sync by the warpgroup for "full", the reverse for "empty"), so FULL tiles
# pay nothing (call 2's per-tile emptyS arrive by every consumer thread cost 2-4% on causal and GQA rows).
# Same checks and A/B as call2/driver.sh ("spans" = the branch's default, "bits" = -Dsaw.kernel.partial=bits).
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/q7
mkdir -p "$res/ab" "$res/specs"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
el "1. verify"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
vfail=0
verify() { # VARIANT OPTS ARGS...
  local v=$1 opts=$2; shift 2
  local extra="" out rc
  [[ $v == bits ]] && extra="-Dsaw.kernel.partial=bits"
  out=$(SAW_JAVA_OPTS="-Xmx48g $extra $opts" timeout -k 5 90 "$pack/saw" verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify $v [$opts] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify $v rc=$rc [$opts] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}')"
}
for fam in wgmma-pp wgmma-ws; do
  F="-Dsaw.kernel.fwd=$fam"
  for D in 64 128; do
    verify spans "$F" 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim $D --block 128x128 --scale 0.7 --pass fwd
    verify spans "$F" 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim $D --dtype bf16 --rows 32 --pass fwd --block 128x128
  done
  verify spans "$F" 'chunked(200)' --seq 2500 --heads 4 --kv-heads 2 --head-dim 128 --dtype bf16 --softcap 30 --pass fwd --block 128x128
  verify spans "$F" 'and(causal,window(1000),docs(2000,1500,96,700,1700))' --seq 6000 --heads 8 --kv-heads 8 --head-dim 128 --dtype bf16 --rows 16 --pass fwd --block 128x128
done
verify spans "" 'and(causal,or(window(300),sinks(4)))' --seq 3000 --heads 4 --head-dim 128 --dtype bf16 --softcap 30 --pass fwd --block 128x128
verify spans "" 'prefix(333)' --seq 1900 --batch 2 --heads 4 --head-dim 64 --dtype fp16 --pass fwd --block 128x128
el "verify failures: $vfail"
if [[ $vfail == 0 ]]; then
  # 2900 tokens x 4 heads: under one row per CTA; 6000 x 8 heads: about three, so the row ring's entries and the
  # K stages' spans are reused across rows
  for tool in memcheck racecheck synccheck; do
    for cfg in "wgmma-pp 128 2900 4" "wgmma-pp 64 2900 4" "wgmma-ws 128 2900 4" "wgmma-pp 128 6000 8" "wgmma-ws 64 6000 8"; do
      left 200 || break
      read -r fam D S H <<<"$cfg"
      docs='300,200,500,700,100,300,800'
      [[ $S == 6000 ]] && docs='300,200,500,700,100,300,800,1200,900,800,100'  # 5900 of 6000: a padded tail
      extra=""
      [[ $tool == racecheck ]] && extra="--racecheck-report all"  # hazard kind (RAW / WAR) and analysis, if any
      o=$(timeout -k 5 90 compute-sanitizer --tool $tool $extra --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
          -Dsaw.kernel.fwd=$fam -cp "$pack/lib/*" saw.app.Main verify "and(causal,docs($docs))" \
          --seq $S --heads $H --kv-heads 2 --head-dim $D --block 128x128 --dtype bf16 --scale 1 --pass fwd --backend gpu 2>&1); rc=$?
      echo "$o" >> "$res/sanitizer.log"
      echo "$tool $fam D=$D S=$S H=$H rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
    done
  done
fi
el "2. A/B"
bench() { # TAG VARIANT SPEC ARGS
  local extra=""
  [[ $2 == bits ]] && extra="-Dsaw.kernel.partial=bits"
  SAW_JAVA_OPTS="-Xmx48g $extra" timeout -k 5 60 "$pack/saw" bench "$res/specs/$3.json" --dtype bf16 --pass fwd \
    --reps 30 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $4 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
N='--block 128x128 --head-dim 128'
S='--block 128x128 --head-dim 64'
ROWS=("docs64-32k|$N" "docs8-8k|$N" "docs8-16k|$N" "window1024-16k|$N" "causal-8k|$N" "gqa-32k|$N --kv-heads 8"
      "docs64-32k|$S" "docs8-8k|$S" "window1024-16k|$S")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3 4; do
    case $r in 1|4) vs="bits spans";; *) vs="spans bits";; esac
    for row in "${ROWS[@]}"; do
      left 290 || break
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
    if ok: rows[tag][var] = (ok[-1]["median_ms"], ok[-1].get("useful_tflops", 0), ok[-1].get("kernel", "?"))
summary = collections.defaultdict(lambda: collections.defaultdict(list))
for tag in sorted(rows):
    v = rows[tag]
    if "bits" not in v or "spans" not in v: continue
    x = v["bits"][0] / v["spans"][0]
    print(f'{tag:26s}  bits {v["bits"][0]:7.3f} ms {v["bits"][1]:6.1f}  spans {v["spans"][0]:7.3f} ms {v["spans"][1]:6.1f}  {x:.3f}x  [{v["spans"][2]}]')
    row = tag.rsplit("-r", 1)[0]
    summary[row]["x"].append(x); summary[row]["b"].append(v["bits"][1]); summary[row]["s"].append(v["spans"][1])
print()
print("row: median over rounds of bits time / spans time (min-max); median useful TFLOP/s bits -> spans")
for row, s in sorted(summary.items()):
    print(f'{row:22s} {statistics.median(s["x"]):.3f}x ({min(s["x"]):.3f}-{max(s["x"]):.3f})  {statistics.median(s["b"]):.1f} -> {statistics.median(s["s"]):.1f}  rounds {len(s["x"])}')
PY
el "3. issue 12's rows with cuDNN (frontier-table.sh, the landed default: spans)"
left 330 && OUT=$res timeout -k 5 200 "$pack/frontier-table.sh" > /dev/null 2>&1; echo "frontier rc=$?"
cat "$res/frontier/table.txt" 2>/dev/null; cat "$res/frontier/cudnn.txt" 2>/dev/null
el done
cd "$OUT" && tar czf q7-logs.tgz q7 && rm -rf q7/ab q7/specs q7/bench.log q7/frontier/specs q7/frontier/results && ls -la q7
