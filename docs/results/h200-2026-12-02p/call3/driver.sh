#!/usr/bin/env bash
# Session 16, call 3: the PARTIAL tiles' mask bits loaded before the wait for the tile's scores (branch mask-early).
# Call 2's profile of 64 documents in 32K (D = 128, wgmma-pp) put 6.4% of all stall samples on two dependent global
# loads after each PARTIAL tile's Q K^T wait: the bit tile's index (maskIdx), then its bits (two rows of 16 bytes).
#   main = the real build of 290cd8b (.gpupack-p1's engine jar)
#   mea  = ws_row_steps issues tile i's index and bit loads right after issuing its Q K^T (sm_90a fatbin on the
#          fatbin-less jar of the same host code, .varjar/mea.fatbin)
#   meb  = mea with the index one tile ahead (-DSAW_MASK_INDEX_AHEAD): only the bits' load is left per tile
# Checks (verify at D 64/128/256, both persistent families, masks with PARTIAL tiles; memcheck), SASS local-memory
# counts, A/B in four interleaved rounds, then Nsight Compute on 64 documents for each variant.
set -uo pipefail
root=$PWD
pack=$root/.gpupack-p1
res=$OUT/p3
mkdir -p "$res/ab" "$res/specs" "$res/prof"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
ln -s "$pack" /tmp/pack-main
VARS="mea meb"
for v in $VARS; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
  cuobjdump --dump-sass --function fwd_wgmmapp_bf16_d128_q128_kv128,fwd_wgmmaws_bf16_d128_q128_kv128,fwd_wgmmapp_bf16_d64_q128_kv128 \
    "$root/.varjar/$v.fatbin" > "/tmp/sass-$v.txt" 2>&1
  awk -v v=$v '/Function : / {fn=$3} fn != "" { n[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; if ($0 ~ /LDG/) ldg[fn]++; seen[fn]=1 }
    END { for (f in seen) printf "%s %s lines %d local %d LDG %d\n", v, f, n[f], lm[f], ldg[f] }' "/tmp/sass-$v.txt" | sort
done
el "1. verify"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
vfail=0
verify() { # VARIANT OPTS ARGS...
  local v=$1 opts=$2; shift 2
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g $opts" timeout -k 5 90 /tmp/pack-$v/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify $v [$opts] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify $v rc=$rc [$opts] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
for v in $VARS; do
  for fam in wgmma-pp wgmma-ws; do
    F="-Dsaw.kernel.fwd=$fam"
    for D in 64 128; do
      verify $v "$F" 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim $D --block 128x128 --scale 0.7 --pass fwd
      verify $v "$F" 'random(128,128,30,3)' --seq 4096 --heads 8 --kv-heads 2 --head-dim $D --dtype bf16 --softcap 30 --rows 16 --pass fwd --block 128x128
    done
    verify $v "$F" 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 128 --dtype fp16 --rows 32 --pass fwd --block 128x128
    verify $v "$F" 'and(causal,docs(700,600,500,100))' --seq 2000 --heads 2 --head-dim 256 --block 64x64 --dtype fp16 --sinks --softcap 50 --pass fwd
  done
  verify $v "" preset:causal --seq 4096 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd
done
el "verify failures: $vfail"
if [[ $vfail == 0 ]]; then
  for v in $VARS; do
    o=$(timeout -k 5 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
        -cp "/tmp/pack-$v/lib/*" saw.app.Main verify 'and(causal,docs(900,1000,1300,500,700,300,800))' \
        --seq 5500 --heads 8 --kv-heads 2 --head-dim 128 --block 128x128 --dtype bf16 --sinks --scale 1 --pass fwd --backend gpu 2>&1); rc=$?
    echo "$o" >> "$res/sanitizer.log"
    echo "memcheck $v rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY' | tail -1)"
  done
fi
el "2. A/B"
cat >"$res/specs/w-causal-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "w-causal-8k", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 64, "kv": 64 }, "mask": { "causal": { "offset": 0 } } }
JSON
bench() { # TAG VARIANT SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$3.json" --dtype bf16 --pass fwd \
    --reps 30 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $4 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
N='--block 128x128 --head-dim 128'
S='--block 128x128 --head-dim 64'
ROWS=("docs64-32k|$N" "docs8-8k|$N" "docs8-16k|$N" "window1024-16k|$N" "causal-8k|$N" "gqa-32k|$N --kv-heads 8"
      "docs64-32k|$S" "docs8-8k|$S" "w-causal-8k|--block 64x64 --head-dim 256")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3 4; do
    case $r in 1) vs="main mea meb";; 2) vs="meb main mea";; 3) vs="mea meb main";; 4) vs="main meb mea";; esac
    for row in "${ROWS[@]}"; do
      left 400 || break
      IFS='|' read -r sp extra <<<"$row"
      dtag=$(echo "$extra" | sed -E 's/.*--head-dim ([0-9]+).*/d\1/')
      for v in $vs; do bench "$dtag-$sp-r$r" "$v" "$sp" "$extra"; done
    done
    el "round $r done"
  done
fi
python3 - "$res/ab" <<'PY' | tee "$res/ab.txt"
import collections, glob, json, os, statistics, sys
VARS = ("mea", "meb")
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    if ok: rows[tag][var] = (ok[-1]["median_ms"], ok[-1].get("useful_tflops", 0), ok[-1].get("kernel", "?"))
summary = collections.defaultdict(lambda: collections.defaultdict(list))
for tag in sorted(rows):
    v = rows[tag]
    if "main" not in v: continue
    line = f'{tag:26s}  main {v["main"][0]:7.3f} ms {v["main"][1]:6.1f}'
    row = tag.rsplit("-r", 1)[0]
    summary[row]["main_tf"].append(v["main"][1])
    for var in VARS:
        if var in v:
            x = v["main"][0] / v[var][0]
            line += f'  {var} {v[var][1]:6.1f} {x:.3f}x'
            summary[row][var].append(x); summary[row][var + "_tf"].append(v[var][1])
    print(line + f'  [{v["main"][2]}]')
print()
print("row: median over rounds of main time / variant time (min-max); median useful TFLOP/s")
for row, s in sorted(summary.items()):
    parts = [f'{row:20s} main {statistics.median(s["main_tf"]):.1f}']
    for var in VARS:
        if s[var]: parts.append(f'{var} {statistics.median(s[var]):.3f}x ({min(s[var]):.3f}-{max(s[var]):.3f}) {statistics.median(s[var + "_tf"]):.1f}')
    print("  ".join(parts))
PY
el "3. profiles"
for v in $VARS; do
  left 470 || break
  timeout -k 5 60 ncu --clock-control none --target-processes all -k regex:'^fwd_' --launch-skip 2 --launch-count 1 \
    --set full --import-source no -f -o "$res/prof/docs64-$v" \
    /tmp/pack-$v/saw bench "$res/specs/docs64-32k.json" --backend gpu --dtype bf16 --head-dim 128 --block 128x128 --pass fwd \
    --reps 1 --warmup 2 --out "/tmp/ncu-$v.jsonl" > "$res/prof/docs64-$v.log" 2>&1
  echo "ncu $v rc=$?"
  ncu -i "$res/prof/docs64-$v.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip > "$res/prof/docs64-$v-source.csv.gz"
  ncu -i "$res/prof/docs64-$v.ncu-rep" --page details --print-details all 2>/dev/null | grep -E "Elapsed Cycles|Duration|Tensor Cycles Active|Issue Slots Busy" | head -5
done
el done
cd "$OUT" && tar czf p3-logs.tgz p3 && rm -rf p3/ab p3/specs p3/bench.log p3/prof/*.ncu-rep && ls -la p3
