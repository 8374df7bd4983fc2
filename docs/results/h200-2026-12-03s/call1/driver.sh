#!/usr/bin/env bash
# Session 19, call 1: the persistent warp-specialised backward (branch persist-bwd): at most one CTA per SM takes the
# backward's launch entries from a work queue, K and V are released per column on "kv empty", dK and dV go from the
# registers. "old" = main's engine jar (7461707: one CTA per column, dK/dV staged through K and V), everything else equal.
# 1. SASS summary of bwd_wgmmaws (local memory), verify (bwd-frontier.sh's matrix + cases with many columns per CTA,
#    split columns, empty columns, Sq != Skv), 2. compute-sanitizer with 2-3 columns per CTA, 3. A/B old/new in
#    two rounds in alternating order, 4. issue 12's rows with cuDNN (frontier-table.sh) on the new build.
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/s1
mkdir -p "$res/ab" "$res/specs" "$res/verify"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
old=/tmp/oldpack
mkdir -p "$old/lib"
ln -sfn "$pack/runtime" "$old/runtime"
cp "$pack"/lib/*.jar "$old/lib/"
rm "$old"/lib/saw-engine-*.jar
cp "$root/.oldjar/saw-engine-old.jar" "$old/lib/"
cp "$pack/saw" "$old/saw"
chmod +x "$old/saw"

el "0. SASS"
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  "$pack"/lib/saw-engine-*.jar > /tmp/new.fatbin
cuobjdump --dump-sass --function bwd_wgmmaws_bf16_d128_q128_kv128,bwd_wgmmaws_bf16_d64_q128_kv128,bwd_wgmmaws_bf16_d128_q128_kv128_softcap /tmp/new.fatbin > /tmp/new.sass 2>&1
awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3} arch=="sm_90a" && fn ~ /^bwd_wgmmaws/ {
       if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /UBLK/) br[fn]++; if ($0 ~ /LDL/) ld[fn]++; if ($0 ~ /STL/) st[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-44s HGMMA %3d  UBLK* %2d  LDL %3d  STL %3d\n", f, hg[f], br[f], ld[f], st[f] }' /tmp/new.sass | sort | tee "$res/sass-summary.txt"
gzip -c /tmp/new.sass > "$res/sass-bwd-ws.txt.gz"

el "1. verify"
OUT=$res BWF_PARTS="verify sanitize" timeout -k 5 200 "$pack/bwd-frontier.sh" > "$res/bwd-frontier.out" 2>&1; echo "bwd-frontier rc=$?"
tail -25 "$res/bwd-frontier.out"
vfail=0
verify() { # NAME ARGS...
  local name=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g" timeout -k 5 120 "$pack/saw" verify "$@" --backend gpu --block 128x128 2>&1); rc=$?
  { echo "== verify $name $*"; echo "$out"; echo "rc=$rc"; } > "$res/verify/$name.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify $name rc=$rc :: $(echo "$out" | awk '$1=="O"||$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}')"
}
# many columns per CTA (1,000-4,000 columns over 132 SMs), documents with padding, GQA, fp16, softcap, D 64 / 128
verify docs-gqa-d128 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --batch 4 --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 --pass fwd,bwd
verify docs-fp16-d64 'and(causal,docs(700,1500,1200,500,3000,77))' --seq 6977 --batch 2 --heads 16 --kv-heads 16 --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd,bwd
verify causal-16k-d128 causal --seq 16384 --batch 1 --heads 16 --kv-heads 8 --head-dim 128 --dtype bf16 --rows 16 --pass fwd,bwd
# split columns: every q tile lists kv tile 0 (sinks), so TileLists cuts column 0 into parts (negative entries)
verify sinks-split-d128 'or(window(512),sinks(4))' --seq 32768 --batch 1 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --rows 16 --pass fwd,bwd
verify sinks-split-d64 'or(window(256),sinks(4))' --seq 16384 --batch 1 --heads 4 --kv-heads 4 --head-dim 64 --dtype fp16 --rows 16 --pass fwd,bwd
# empty columns (kv tiles past the window of every q row): columns without steps between columns with steps
verify empty-cols-d128 'window(256)' --seq 700 --seq-kv 8192 --batch 2 --heads 16 --head-dim 128 --dtype bf16 --pass fwd,bwd
verify empty-cols-d64 'window(100)' --seq 1000 --seq-kv 5000 --batch 4 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --softcap 20 --pass fwd,bwd
verify random-d128 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 --rows 24 --pass fwd,bwd
verify chunked-ragged 'chunked(300)' --seq 5001 --batch 3 --heads 8 --kv-heads 4 --head-dim 128 --dtype bf16 --scale 0.7 --pass fwd,bwd
el "verify failures: $vfail"

el "2. sanitizers"
if [[ $vfail == 0 ]]; then
  for tool in memcheck racecheck synccheck; do
    for cfg in "128 5000 8 8" "64 6000 8 8"; do
      left 230 || break
      read -r D S H HK <<<"$cfg"
      extra=""
      [[ $tool == racecheck ]] && extra="--racecheck-report all"
      o=$(timeout -k 5 120 compute-sanitizer --tool $tool $extra --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
          -cp "$pack/lib/*" saw.app.Main verify "and(causal,docs(300,200,500,700,100,300,800,1200,900))" \
          --seq $S --heads $H --kv-heads $HK --head-dim $D --block 128x128 --dtype bf16 --scale 1 --pass bwd --backend gpu 2>&1); rc=$?
      echo "$o" | gzip >> "$res/sanitizer.log.gz"
      echo "$tool D=$D S=$S H=$H Hkv=$HK rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
    done
  done
fi

el "3. A/B"
. "$pack/specs-lib.sh"
frontier_specs "$res/specs"
mask_spec "$res/specs" sinks-128k 131072 1 32 '{ "or": [ { "sliding_window": { "left": 4096, "right": 0 } }, { "sinks": { "count": 4 } } ] }'
bench() { # TAG VARIANT SPEC ARGS
  local p=$pack; [[ $2 == old ]] && p=$old
  SAW_JAVA_OPTS="-Xmx48g" timeout -k 5 90 "$p/saw" bench "$res/specs/$3.json" --dtype bf16 --pass bwd \
    --reps 10 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $4 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
N='--block 128x128 --head-dim 128'
S='--block 128x128 --head-dim 64'
ROWS=("docs64-32k|$N" "docs8-8k|$N" "docs8-16k|$N" "window1024-16k|$N" "causal-8k|$N" "gqa-32k|$N --kv-heads 8"
      "docs64-32k|$S" "causal-8k|$S" "gqa-32k|$S --kv-heads 8" "sinks-128k|$N --kv-heads 8")
if [[ $vfail == 0 ]]; then
  for r in 1 2; do
    case $r in 2) vs="new old";; *) vs="old new";; esac
    for row in "${ROWS[@]}"; do
      left 540 || break
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
    if "old" not in v or "new" not in v: continue
    x = v["old"][0] / v["new"][0]
    print(f'{tag:26s}  old {v["old"][0]:8.3f} ms {v["old"][1]:6.1f}  new {v["new"][0]:8.3f} ms {v["new"][1]:6.1f}  {x:.3f}x  [{v["new"][2]}]')
    row = tag.rsplit("-r", 1)[0]
    summary[row]["x"].append(x); summary[row]["o"].append(v["old"][1]); summary[row]["n"].append(v["new"][1])
print()
print("row: median over rounds of old time / new time (min-max); median useful TFLOP/s old -> new")
for row, s in sorted(summary.items()):
    print(f'{row:22s} {statistics.median(s["x"]):.3f}x ({min(s["x"]):.3f}-{max(s["x"]):.3f})  {statistics.median(s["o"]):.1f} -> {statistics.median(s["n"]):.1f}  rounds {len(s["x"])}')
PY
el "4. issue 12's rows with cuDNN (frontier-table.sh, the new build), if time is left"
left 400 && OUT=$res timeout -k 5 170 "$pack/frontier-table.sh" > /dev/null 2>&1; echo "frontier rc=$?"
cat "$res/frontier/table.txt" 2>/dev/null
el done
cd "$OUT" && tar czf s1-logs.tgz s1 && rm -rf s1/ab s1/specs s1/bench.log s1/frontier/specs s1/frontier/results s1/bwd/specs && ls -la s1
