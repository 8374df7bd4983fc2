#!/usr/bin/env bash
# Session 13, call 4. Pack: .gpupack-m1 (app, presets, remote jars) + .varjar/engine-m3-nofatbin.jar (branch ws-rowref's
# engine: the persistent forward's row ring holds five ints per entry) + sm_90a fatbins: "main" = main 50c429b's
# kernels, "rr" = ws-rowref (the persistent Hopper forward: rows read by the producer and handed through the ring, the
# queue asked one row ahead, 8-byte output stores).
# "nl" = ws-rowref-nolook (the same without the queue's one-row lookahead).
#  1. nl: two verifies with many rows per CTA
#  2. forward A/B/C main, rr, nl, 128x128, three rounds in rotating order
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/m4
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
for v in main rr nl; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  jar "$root/.varjar/engine-m3-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
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

el "1. nl checks"
vfail=0
verify() { # FAMILY ARGS...
  local fam=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$fam" timeout -k 5 90 /tmp/pack-nl/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify [$fam] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify rc=$rc [$fam] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
verify wgmma-pp "$res/specs/docs64-32k.json" --head-dim 128 --dtype bf16 --rows 32 --pass fwd --block 128x128
verify wgmma-ws 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 64 --dtype fp16 --rows 32 --pass fwd --block 128x128
el "2. A/B/C"
bench() { # TAG VARIANT FAMILY SPEC D
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$3" timeout -k 5 100 /tmp/pack-$2/saw bench "$res/specs/$4.json" --block 128x128 --head-dim "$5" \
    --pass fwd --reps 20 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
for r in 1 2 3; do
  case $r in 1) vs="main rr nl" ;; 2) vs="nl main rr" ;; 3) vs="rr nl main" ;; esac
  for row in "gqa-32k 128 wgmma-pp" "causal-16k 128 wgmma-pp" "docs64-32k 128 wgmma-pp" "docs64-32k 128 wgmma-ws" \
             "docs8-16k 128 wgmma-pp" "window1024-16k 128 wgmma-pp" "chunked512-16k 128 wgmma-pp"; do
    left 540 || break
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
    if "main" in v:
        print(f'{tag:28s} ' + "  ".join(f'{k} {v[k][0]:8.3f} ms {v[k][1]:6.1f} {v["main"][0] / v[k][0]:.3f}x' for k in ("main", "rr", "nl") if k in v))
PY
el done
cd "$OUT" && tar czf m4-logs.tgz m4 && rm -rf m4/ab m4/specs m4/bench.log m4/verify.log && ls -la "$OUT/m4"
