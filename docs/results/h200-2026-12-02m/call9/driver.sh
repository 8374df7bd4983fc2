#!/usr/bin/env bash
# Session 13, call 9. Pack: .gpupack-m1 (app, presets, remote jars) + .varjar/engine-m3-nofatbin.jar (branch ws-rowref's
# engine, the same host code as main 0b359cf) with .varjar/nl.fatbin (main's kernels) as "main", and
# .varjar/engine-d64-nofatbin.jar (branch ws-dq64's engine: a second Q buffer in the persistent forward's shared
# memory at D = 64) with .varjar/d64.fatbin as "dq" (the pipeline across rows with two Q buffers at D = 64 only; D = 128
# keeps main's kernels, PTX identical).
#  1. dq: D = 64 verifies (stops at the first failure), memcheck / racecheck / synccheck with 2-3 rows per CTA
#  2. forward A/B main vs dq at D = 64, 128x128, two rounds alternating, 20 reps
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/m9
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
for v in main dq; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  jar "$root/.varjar/$([[ $v == main ]] && echo engine-m3 || echo engine-d64)-nofatbin.jar" "$root/.varjar/$([[ $v == main ]] && echo nl || echo d64).fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
done
spec() { # NAME S B H MASK_JSON
  cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 128, "kv": 128 }, "mask": $5 }
JSON
}
CAUSAL='{ "causal": { "offset": 0 } }'
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
spec docs64-32k 32768 1 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$L$((32768 - SUM))] } } ] }"
docs8() { local S=$1 L="" SUM=0 n; for pct in 5 10 15 10 20 10 20; do n=$((S * pct / 100)); L="$L$n, "; SUM=$((SUM + n)); done; echo "$L$((S - SUM))"; }
spec docs8-8k 8192 4 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$(docs8 8192)] } } ] }"
spec docs8-16k 16384 4 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$(docs8 16384)] } } ] }"
spec window1024-16k 16384 4 16 '{ "sliding_window": { "left": 1024, "right": 0 } }'
spec causal-8k 8192 4 16 "$CAUSAL"
spec causal-16k 16384 4 16 "$CAUSAL"
spec gqa-32k 32768 1 32 "$CAUSAL"
spec chunked128-16k 16384 4 16 '{ "chunked_causal": { "chunk": 128 } }'
spec chunked512-16k 16384 4 16 '{ "chunked_causal": { "chunk": 512 } }'

el "1. dq checks"
vfail=0
verify() { # FAMILY ARGS...
  local fam=$1; shift
  [[ $vfail == 0 ]] || return
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$fam" timeout -k 5 90 /tmp/pack-dq/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify [$fam] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify rc=$rc [$fam] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
verify wgmma-pp preset:causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --head-dim 64 --dtype bf16 --rows 24 --pass fwd
verify wgmma-ws preset:causal --seq 16384 --batch 2 --heads 16 --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd
verify wgmma-pp "$res/specs/docs64-32k.json" --head-dim 64 --dtype bf16 --rows 32 --pass fwd --block 128x128
verify wgmma-ws "$res/specs/docs64-32k.json" --head-dim 64 --dtype bf16 --rows 32 --pass fwd --block 128x128
verify wgmma-pp 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 64 --dtype fp16 --rows 32 --pass fwd --block 128x128
verify wgmma-ws 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim 64 --block 128x128
verify wgmma-pp "$res/specs/chunked128-16k.json" --head-dim 64 --dtype bf16 --rows 32 --pass fwd --block 128x128
verify wgmma-ws 'random(128,128,10,3)' --seq 16384 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --sinks --softcap 30 --rows 16 --pass fwd --block 128x128
for fam in wgmma-pp wgmma-ws; do
  for tool in memcheck racecheck synccheck; do
    [[ $vfail == 0 ]] || break
    o=$(timeout -k 5 90 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
        -Dsaw.kernel.fwd=$fam -cp "/tmp/pack-dq/lib/*" saw.app.Main verify 'and(causal,docs(900,1000,1300,500,700,300,800))' \
        --seq 5500 --heads 8 --kv-heads 2 --head-dim 64 --block 128x128 --dtype bf16 --sinks --pass fwd --backend gpu 2>&1); rc=$?
    echo "$o" >> "$res/sanitizer.log"
    echo "$tool $fam rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done
el "2. A/B"
bench() { # TAG VARIANT FAMILY SPEC D
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$3" timeout -k 5 100 /tmp/pack-$2/saw bench "$res/specs/$4.json" --block 128x128 --head-dim "$5" \
    --pass fwd --reps 20 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
if [[ $vfail == 0 ]]; then
  for r in 1 2; do
    if [[ $r == 2 ]]; then vs="dq main"; else vs="main dq"; fi
    for row in "causal-8k 64 wgmma-pp" "causal-16k 64 wgmma-pp" "gqa-32k 64 wgmma-pp" "docs64-32k 64 wgmma-pp" \
               "docs8-16k 64 wgmma-pp" "window1024-16k 64 wgmma-pp" "causal-8k 64 wgmma-ws" "docs64-32k 64 wgmma-ws"; do
      left 150 || break
      read -r sp d fam <<<"$row"
      for v in $vs; do bench "$sp-d$d-${fam#wgmma-}-r$r" "$v" "$fam" "$sp" "$d"; done
    done
  done
  python3 - "$res/ab" <<'PY' | tee "$res/ab.txt"
import collections, glob, json, os, sys
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    if ok: rows[tag][var] = (ok[-1]["median_ms"], ok[-1]["useful_tflops"])
for tag in sorted(rows):
    v = rows[tag]
    if "main" in v and "dq" in v:
        print(f'{tag:28s} main {v["main"][0]:8.3f} ms {v["main"][1]:6.1f}  dq {v["dq"][0]:8.3f} ms {v["dq"][1]:6.1f}  {v["main"][0] / v["dq"][0]:.3f}x')
PY
fi
el done
cd "$OUT" && tar czf m9-logs.tgz m9 && rm -rf m9/ab m9/specs m9/bench.log m9/verify.log m9/sanitizer.log && ls -la "$OUT/m9"
