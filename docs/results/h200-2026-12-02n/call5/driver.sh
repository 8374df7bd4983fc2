#!/usr/bin/env bash
# Session 14, call 5: the D = 128 persistent forward with turns (wgmma-pp) runs its rows as one pipeline (a row's last
# P V issued with the next row's first Q K^T, as at D = 64) over ONE Q buffer: each consumer warpgroup holds its whole Q
# as wgmma A fragments (32 registers), loaded at the row's start, after which the buffer is released and the producer
# loads the next row's Q into it (branch d128-pipe-frags). ptxas: 4 bytes of spills, as main. Two sm_90a fatbins, host =
# main's engine (the D = 128 shared memory is unchanged):
#   base  = .varjar/d64q.fatbin, whose D = 128 kernels are main 756b4be's
#   pipe  = .varjar/pipe.fatbin; PTX differs from main in fwd_wgmmapp_{bf16,fp16}_d128_q128_kv128 only
#  1. D = 128 verifies with wgmma-pp, compute-sanitizer memcheck / racecheck / synccheck (2-3 rows per CTA)
#  2. forward A/B at D = 128, 128x128, four rounds in rotated order, 20 reps
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/n5
mkdir -p "$res/ab" "$res/specs"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
jar() { # NOFATBIN FATBIN OUT
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
}
declare -A FB=([base]=d64q [pipe]=pipe)
for v in base pipe; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  jar "$root/.varjar/engine-d64-nofatbin.jar" "$root/.varjar/${FB[$v]}.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
done
cuobjdump --dump-sass --function fwd_wgmmapp_bf16_d128_q128_kv128 "$root/.varjar/pipe.fatbin" > "$res/sass.txt" 2>&1
awk '/Function : / {fn=$3} fn != "" { if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; if ($0 ~ /LDSM/) ls[fn]++; seen[fn]=1 }
  END { for (f in seen) printf "pipe %s HGMMA %d local %d LDSM %d\n", f, hg[f], lm[f], ls[f] }' "$res/sass.txt" | sort
rm -f "$res/sass.txt"
el "1. checks"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
mask_spec "$res/specs" chunked128-16k 16384 4 16 '{ "chunked_causal": { "chunk": 128 } }'
mask_spec "$res/specs" chunked512-16k 16384 4 16 '{ "chunked_causal": { "chunk": 512 } }'
vfail=0
verify() { # ARGS...
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=wgmma-pp" timeout -k 5 90 /tmp/pack-pipe/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify rc=$rc $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
verify preset:causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 --pass fwd
verify preset:causal --seq 16384 --batch 2 --heads 16 --head-dim 128 --dtype fp16 --softcap 30 --rows 24 --pass fwd
verify "$res/specs/docs64-32k.json" --head-dim 128 --dtype bf16 --rows 32 --pass fwd --block 128x128
verify "$res/specs/docs8-8k.json" --head-dim 128 --dtype fp16 --rows 32 --pass fwd --block 128x128
verify 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 128 --dtype fp16 --rows 32 --pass fwd --block 128x128
verify 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim 128 --block 128x128
verify "$res/specs/chunked128-16k.json" --head-dim 128 --dtype bf16 --rows 32 --pass fwd --block 128x128
verify 'random(128,128,10,3)' --seq 16384 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --sinks --softcap 30 --rows 16 --pass fwd --block 128x128
verify 'or(sinks(16),window(128,128))' --seq 1000 --seq-kv 1500 --heads 2 --head-dim 128 --dtype bf16 --pass fwd --block 128x128
for tool in memcheck racecheck synccheck; do
  [[ $vfail == 0 ]] || break
  o=$(timeout -k 5 90 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
      -Dsaw.kernel.fwd=wgmma-pp -cp "/tmp/pack-pipe/lib/*" saw.app.Main verify 'and(causal,docs(900,1000,1300,500,700,300,800))' \
      --seq 5500 --heads 8 --kv-heads 2 --head-dim 128 --block 128x128 --dtype bf16 --sinks --pass fwd --backend gpu 2>&1); rc=$?
  echo "$o" >> "$res/sanitizer.log"
  echo "$tool rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
done
el "2. A/B"
bench() { # TAG VARIANT SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=wgmma-pp" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$3.json" --dtype bf16 --pass fwd \
    --reps 20 --warmup 3 --backend gpu --block 128x128 --head-dim 128 --out "$res/ab/$1-$2.jsonl" $4 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
ROWS=("docs8-16k|" "window1024-16k|" "docs64-32k|" "docs8-8k|" "chunked512-16k|" "causal-8k|" "causal-16k|" "gqa-32k|--kv-heads 8")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3 4; do
    case $r in 1|3) vs="base pipe";; 2|4) vs="pipe base";; esac
    for row in "${ROWS[@]}"; do
      left 470 || break
      IFS='|' read -r sp extra <<<"$row"
      for v in $vs; do bench "$sp-r$r" "$v" "$sp" "$extra"; done
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
    if "base" in v and "pipe" in v:
        x = v["base"][0] / v["pipe"][0]
        print(f'{tag:26s}  base {v["base"][0]:7.3f} ms {v["base"][1]:6.1f}  pipe {v["pipe"][0]:7.3f} ms {v["pipe"][1]:6.1f}  {x:.3f}x  [{v["base"][2]}]')
        row = tag.rsplit("-r", 1)[0]
        summary[row]["x"].append(x); summary[row]["base"].append(v["base"][1]); summary[row]["pipe"].append(v["pipe"][1])
print()
print("row: median over rounds of base time / pipe time (min-max); median TFLOP/s")
for row, s in sorted(summary.items()):
    print(f'{row:22s} {statistics.median(s["x"]):.3f}x ({min(s["x"]):.3f}-{max(s["x"]):.3f})  base {statistics.median(s["base"]):.1f}  pipe {statistics.median(s["pipe"]):.1f}')
PY
el done
cd "$OUT" && tar czf n5-logs.tgz n5 && rm -rf n5/ab n5/specs n5/bench.log n5/verify.log n5/sanitizer.log && ls -la "$OUT/n5"
