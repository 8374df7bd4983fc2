#!/usr/bin/env bash
# Issue 12 on the H200: the 64-row Hopper forward at head dims 64 and 128 (attention_fwd_wgmma_d256.cu's
# fwd_wgmma{ws,pp}_*_d{64,128}_q64_kv64, run on 64x64 layouts where the forward family is wgmma-ws or wgmma-pp). Run
# from the pack folder's parent (OUT=out .gpupack/q64-forward.sh); about 4 minutes with every part:
# (0) SASS of the new kernels: HGMMA count, no HMMA, no local memory;
# (1) saw verify forward + backward (the backward at 64x64 is mma.sync) against the fp64 reference, both families,
#     D = 128 and 64: causal, GQA, window with Skv < Sq, documents with padding rows, and(causal, docs), random
#     blocks, dilated (every tile PARTIAL), Sq != Skv with ragged ends, sinks, softcap, bf16 and fp16;
# (2) forward timings, useful TFLOP/s: 64x64 with wgmma-pp and wgmma-ws against 128x128 (the 128-row Hopper
#     forward of the same family) on 64 packed documents in 32K, 8 documents, window 1024, causal, GQA;
# (3) compute-sanitizer memcheck, racecheck and synccheck on small forwards of both families.
# Q64_PARTS picks parts ("sass verify timing sanitizer"), Q64_ROUNDS the timing rounds (2). Everything goes to
# $OUT/q64/; a summary is printed last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
java="$here/runtime/bin/java"
dir=${OUT:-$here}/q64
mkdir -p "$dir/specs" "$dir/results"
log="$dir/run.log"
: >"$log"
parts=" ${Q64_PARTS:-sass verify timing sanitizer} "
part() { [[ $parts == *" $1 "* ]]; }
summary=()
t0=$(date +%s)
note() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>"$log" 2>&1 || true

if part sass; then
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
    "$here"/lib/saw-engine-*.jar >"$dir/saw.fatbin" 2>>"$log"
  timeout 30 cuobjdump --dump-sass "$dir/saw.fatbin" 2>>"$log" | awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3}
      fn ~ /^fwd_wgmma(ws|pp)_.*_d(64|128)_q64_kv64/ && arch=="sm_90a" {
        if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /HMMA/) hm[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; seen[fn]=1 }
      END { for (f in seen) printf "%s|HGMMA %d, HMMA %d, local memory %d\n", f, hg[f], hm[f], lm[f] }' | sort >"$dir/sass.txt"
  while read -r line; do summary+=("sass ${line%%|*}: ${line#*|}"); done <"$dir/sass.txt"
  rm -f "$dir/saw.fatbin"
fi

declare -A pass=() fail=()
verify() {  # FAMILY D verify-args...
  local fam=$1 d=$2 out rc; shift 2
  out=$(SAW_JAVA_OPTS="-Dsaw.kernel.fwd=$fam" timeout -k 5 40 "$saw" verify "$@" --head-dim "$d" --block 64x64 --backend gpu 2>&1); rc=$?
  { echo "== verify [$fam] D=$d $*"; echo "$out"; echo "rc=$rc"; } >>"$log"
  if [[ $rc == 0 ]]; then pass[$fam]=$((${pass[$fam]:-0} + 1)); else fail[$fam]=$((${fail[$fam]:-0} + 1)); fi
  printf '%-4s %-9s D=%-3s %s  %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$fam" "$d" "$*" \
    "$(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')" | tee -a "$dir/verify.txt"
  [[ $rc == 0 ]] || echo "$out" | tail -6
}
if part verify; then
  note "== verify, 64-row Hopper forward + mma.sync backward at 64x64 =="
  for fam in wgmma-pp wgmma-ws; do
    verify $fam 128 causal                          --seq 2048 --heads 4               --dtype bf16
    verify $fam 128 causal                          --seq 2048 --heads 8 --kv-heads 2  --dtype fp16 --sinks
    verify $fam 128 'window(256)'                   --seq 1536 --seq-kv 1000 --heads 4 --kv-heads 2 --dtype fp16
    verify $fam 128 'docs(700,600,500,148)'         --seq 2048 --heads 2               --dtype fp16 --sinks --softcap 50
    verify $fam 128 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype bf16 --softcap 20
    verify $fam 128 'random(64,64,5,3)'             --seq 2048 --heads 4 --kv-heads 1  --dtype bf16 --sinks
    verify $fam 128 'dilated(3)'                    --seq 777  --heads 2               --dtype bf16
    verify $fam 128 causal                          --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 2 --dtype bf16
    verify $fam 64  causal                          --seq 2048 --heads 4 --kv-heads 2  --dtype bf16 --sinks
    verify $fam 64  'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --softcap 20
    verify $fam 64  'random(64,64,5,9)'             --seq 1500 --seq-kv 900 --heads 2  --dtype bf16
  done
  for fam in wgmma-pp wgmma-ws; do summary+=("verify $fam: ${pass[$fam]:-0} passed, ${fail[$fam]:-0} failed"); done
fi

. "$here/specs-lib.sh"
frontier_specs "$dir/specs"
bench() { # TAG FAMILY BLOCKS SPEC D EXTRA...
  local tag=$1 fam=$2 blocks=$3 sp=$4 d=$5; shift 5
  SAW_JAVA_OPTS="-Dsaw.kernel.fwd=$fam" timeout -k 5 120 "$saw" bench "$dir/specs/$sp.json" --block "$blocks" --head-dim "$d" \
    --pass fwd --reps "${Q64_REPS:-10}" --warmup 3 --backend gpu --out "$dir/results/$tag.jsonl" "$@" >>"$log" 2>&1 \
    || echo "bench $tag: rc=$?" | tee -a "$log"
}
if part timing; then
  note "== forward timings =="
  for round in $(seq 1 "${Q64_ROUNDS:-2}"); do
    for row in "docs64-32k 128" "docs64-32k 64" "docs8-8k 128" "docs8-16k 128" "window1024-16k 128" "causal-8k 128" \
               "gqa-32k 128|--kv-heads 8"; do
      IFS='|' read -r sd extra <<<"$row"; read -r sp d <<<"$sd"
      # shellcheck disable=SC2086
      bench "$sp-d$d-r$round-pp" wgmma-pp 64x64,128x128 "$sp" "$d" $extra
      # shellcheck disable=SC2086
      bench "$sp-d$d-r$round-ws" wgmma-ws 64x64,128x128 "$sp" "$d" $extra
    done
  done
  python3 - "$dir/results" <<'PY' | tee "$dir/timing.txt"
import collections, glob, json, os, sys
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, fam = os.path.basename(f)[:-6].rsplit("-", 1)
    base, rnd = tag.rsplit("-r", 1)
    for r in (json.loads(l) for l in open(f) if l.strip()):
        if "median_ms" in r:
            rows[base].setdefault((fam, r["tile"]), []).append((r["useful_tflops"], r["median_ms"], r.get("kernel", "")))
print(f'{"row":24s} {"family":5s} {"block":8s} {"TFLOP/s per round":26s} kernel')
for base in sorted(rows):
    for (fam, blk), v in sorted(rows[base].items()):
        print(f'{base:24s} {fam:5s} {blk:8s} {" / ".join(f"{t:6.1f}" for t, _, _ in v):26s} {v[-1][2]}')
PY
fi

if part sanitizer; then
  note "== compute-sanitizer =="
  for fam in wgmma-pp wgmma-ws; do
    for tool in memcheck racecheck synccheck; do
      o=$(timeout -k 5 120 compute-sanitizer --tool $tool --error-exitcode 9 "$java" -Djava.awt.headless=true \
          -Dsaw.kernel.fwd=$fam -cp "$here/lib/*" saw.app.Main verify 'and(causal,docs(300,500,170,30))' --seq 1000 \
          --heads 2 --kv-heads 1 --head-dim 128 --block 64x64 --dtype bf16 --sinks --pass fwd --backend gpu 2>&1); rc=$?
      echo "$o" >>"$log"
      line="$tool $fam D=128 rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
      echo "$line" | tee -a "$dir/sanitizer.txt"; summary+=("$line")
    done
  done
fi

note "== summary =="
for s in "${summary[@]}"; do echo "$s"; done | tee -a "$log"
