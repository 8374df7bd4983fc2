#!/usr/bin/env bash
# Twenty-second session, call 6: branch bwd-s-ahead, the D = 64 backward with each step's S^T computed behind the step
# before's dK (BwdWg::step's S_AHEAD; D = 128 PTX identical to main). Pack A = .gpupack (main's kernels, sm_90a-only
# fatbin with -lineinfo); pack B = the same jars with the engine jar's fatbin replaced by .gpupack/var/sahead.fatbin
# (same nvcc flags, the branch's source). 1. verify (D = 64 cases with many columns per CTA, padded, empty and split
# columns, softcap, fp16, GQA) and compute-sanitizer (racecheck, synccheck, memcheck on padded documents, racecheck on
# an Skv > Sq window) on pack B; 2. A/B of the backward at D = 64 on issue 12's rows, three rounds, the order of A and
# B alternating. Work files in /tmp/c6, returned as $OUT/c6.tgz (+ driver.log).
set -uo pipefail
root=$PWD
pa=$root/.gpupack
pb=/tmp/pb
res=/tmp/c6
mkdir -p "$res/san" "$res/verify" "$res/ab" "$pb/lib"
exec > >(tee "$OUT/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
pack_logs() { tar czf "$OUT/c6.tgz" -C /tmp --exclude=c6/specs c6; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
ln -s "$pa/runtime" "$pb/runtime"
cp "$pa"/*.sh "$pb/"
sed 's/af9764a/bwd-s-ahead/' "$pa/saw" > "$pb/saw"; chmod +x "$pb/saw"
cp "$pa"/lib/*.jar "$pb/lib/"
python3 - "$pa"/lib/saw-engine-*.jar "$pa/var/sahead.fatbin" "$pb/lib/$(basename "$pa"/lib/saw-engine-*.jar)" <<'PY'
import sys, zipfile
src, fat, dst = sys.argv[1:]
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for i in a.infolist():
        data = open(fat, "rb").read() if i.filename == "saw/kernels/saw_attention.fatbin" else a.read(i.filename)
        b.writestr(i, data)
print("pack B engine jar written")
PY
for p in "$pa" "$pb"; do
  python3 -c 'import sys, zipfile, hashlib; print(sys.argv[1], hashlib.sha1(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin")).hexdigest()[:12])' "$p"/lib/saw-engine-*.jar
done

# SASS of the D = 64 backward, both packs: wgmma count, local memory, warpgroup arrives/waits
for p in "$pa" "$pb"; do
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
    "$p"/lib/saw-engine-*.jar > /tmp/k.fatbin
  for k in bwd_wgmmaws_bf16_d64_q128_kv128 bwd_wgmmaws_bf16_d64_q128_kv128_softcap; do
    cuobjdump --dump-sass --function $k /tmp/k.fatbin > "$res/$(basename "$p")-$k.sass" 2>&1
    f="$res/$(basename "$p")-$k.sass"
    echo "SASS $(basename "$p") $k: HGMMA $(grep -c HGMMA "$f"), LDL/STL $(grep -cE 'LDL|STL' "$f"), WARPGROUP.ARRIVE $(grep -c 'WARPGROUP.ARRIVE' "$f"), WARPGROUP.DEPBAR $(grep -c 'WARPGROUP.DEPBAR' "$f")"
  done
done
el "1. sanitizers and verify on pack B"
san() { # NAME TOOL MASK ARGS...
  local name=$1 tool=$2 mask=$3; shift 3
  local extra="" rc
  [[ $tool == racecheck ]] && extra="--racecheck-report all"
  timeout -k 5 150 compute-sanitizer --tool "$tool" $extra --print-limit 40 --error-exitcode 9 "$pb/runtime/bin/java" \
    -Djava.awt.headless=true -cp "$pb/lib/*" saw.app.Main verify "$mask" "$@" --block 128x128 --backend gpu \
    > "$res/san/$name-$tool.log" 2>&1; rc=$?
  echo "$name $tool rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san/$name-$tool.log" | tail -1)"
}
DOCS='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
pids=()
throttle() { while [[ $(jobs -rp | wc -l) -ge 6 ]]; do sleep 0.2; done; }
for tool in racecheck synccheck memcheck; do
  throttle; san d64-padded $tool "$DOCS" --seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --scale 1 --pass fwd,bwd & pids+=($!)
done
throttle; san d64-window racecheck 'window(100)' --seq 1000 --seq-kv 5000 --batch 4 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --softcap 20 --pass fwd,bwd & pids+=($!)
throttle; san d64-causal-fp16 racecheck causal --seq 3000 --heads 4 --kv-heads 2 --head-dim 64 --dtype fp16 --softcap 30 --pass fwd,bwd & pids+=($!)
verify() { # NAME ARGS...
  local name=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx16g" timeout -k 5 120 "$pb/saw" verify "$@" --backend gpu --block 128x128 2>&1); rc=$?
  { echo "== verify $name $*"; echo "$out"; echo "rc=$rc"; } > "$res/verify/$name.log"
  echo "verify $name rc=$rc :: $(echo "$out" | awk '$1=="O"||$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}')"
  return $rc
}
vp=()
vthrottle() { while [[ $(jobs -rp | wc -l) -ge 9 ]]; do sleep 0.2; done; }
V() { vthrottle; verify "$@" & vp+=($!); }
V docs-fp16-d64 'and(causal,docs(700,1500,1200,500,3000,77))' --seq 6977 --batch 2 --heads 16 --kv-heads 16 --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd,bwd
V sinks-split-d64 'or(window(256),sinks(4))' --seq 16384 --batch 1 --heads 4 --kv-heads 4 --head-dim 64 --dtype fp16 --rows 16 --pass fwd,bwd
V empty-cols-d64 'window(100)' --seq 1000 --seq-kv 5000 --batch 4 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --softcap 20 --pass fwd,bwd
V padded-docs-d64 "$DOCS" --seq 6000 --batch 3 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --pass fwd,bwd
V causal-gqa-d64 causal --seq 1001 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --pass fwd,bwd
V causal-16k-d64 causal --seq 16384 --batch 1 --heads 16 --kv-heads 4 --head-dim 64 --dtype bf16 --rows 16 --pass fwd,bwd
V random-d64 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16 --rows 24 --pass fwd,bwd
V chunked-d64 'chunked(300)' --seq 5001 --batch 3 --heads 8 --kv-heads 4 --head-dim 64 --dtype bf16 --scale 0.7 --pass fwd,bwd
V short-q-d64 causal --seq 3 --seq-kv 700 --batch 2 --heads 4 --head-dim 64 --dtype bf16 --pass fwd,bwd
vfail=0
for p in "${vp[@]}"; do wait "$p" || vfail=$((vfail + 1)); done
el "verify failures: $vfail"
for p in "${pids[@]}"; do wait "$p"; done
el "sanitizers done"
pack_logs
OUT=$res BWF_PARTS="verify" timeout -k 5 120 "$pb/bwd-frontier.sh" > "$res/bwd-frontier.out" 2>&1; echo "bwd-frontier (pack B) rc=$?"
tail -6 "$res/bwd-frontier.out"
pack_logs

el "2. A/B, backward at D = 64"
. "$pa/specs-lib.sh"
mkdir -p "$res/specs"; frontier_specs "$res/specs"
bench() { # PACK TAG ROW ROUND EXTRA...
  local p=$1 tag=$2 sp=$3 r=$4; shift 4
  timeout -k 5 120 "$p/saw" bench "$res/specs/$sp.json" --block 128x128 --head-dim 64 --pass bwd --reps 10 --warmup 3 \
    --backend gpu --out "$res/ab/$tag-$sp-r$r.jsonl" "$@" >> "$res/ab/bench.log" 2>&1 || echo "bench $tag $sp r$r rc=$?"
}
rows=("causal-8k" "causal-16k" "gqa-32k|--kv-heads 8" "docs64-32k" "docs8-16k" "window1024-16k")
for r in 1 2 3; do
  for row in "${rows[@]}"; do
    IFS='|' read -r sp extra <<<"$row"
    # shellcheck disable=SC2086
    if (( r % 2 )); then bench "$pa" A "$sp" $r $extra; bench "$pb" B "$sp" $r $extra
    else bench "$pb" B "$sp" $r $extra; bench "$pa" A "$sp" $r $extra; fi
  done
  el "round $r done"
  (( $(date +%s) - t0 < 470 )) || break
done
python3 - "$res/ab" <<'PY' | tee "$res/ab/table.txt"
import glob, json, os, re, sys, statistics
d = sys.argv[1]
t = {}
for f in glob.glob(os.path.join(d, "*.jsonl")):
    tag, sp, r = re.match(r"([AB])-(.*)-r(\d+)\.jsonl", os.path.basename(f)).groups()
    for line in open(f):
        j = json.loads(line)
        if j.get("pass") == "bwd" and j.get("status") == "ok":
            t.setdefault(sp, {}).setdefault(int(r), {})[tag] = (j["useful_tflops"], j["kernel"])
print(f"{'row (D=64, bwd)':18} {'round':>5} {'A main':>8} {'B ahead':>8} {'B/A':>6}")
for sp in sorted(t):
    ratios = []
    for r in sorted(t[sp]):
        x = t[sp][r]
        if "A" in x and "B" in x:
            ratios.append(x["B"][0] / x["A"][0])
            print(f"{sp:18} {r:>5} {x['A'][0]:8.1f} {x['B'][0]:8.1f} {ratios[-1]:6.3f}  {x['B'][1]}")
    if ratios:
        print(f"{sp:18} {'all':>5} {'':8} {'':8} {min(ratios):.3f}-{max(ratios):.3f} (median {statistics.median(ratios):.3f})")
PY
el done
pack_logs
