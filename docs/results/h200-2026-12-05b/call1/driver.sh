#!/usr/bin/env bash
# Twenty-third session, call 1: the twenty-second session's prepared driver (docs/results/h200-2026-12-05/call14-not-run/)
# run on main 6fbebea's pack (pack A) and pack B = A's jars with the engine's fatbin from branch bwd-desc-add (a98c291:
# every wgmma descriptor of the Hopper backward at D = 64 / 128 and of the forwards at D <= 128 built once per operand
# and advanced by adds), built with -lineinfo into .gpupack/var/da.fatbin.gz:
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -gencode=arch=compute_90a,code=sm_90a -o da.fatbin saw_attention.cu
# Changes from the prepared one: the pack's jars now start JCuda through JCudaNatives (parallel starts are safe), the
# fatbin travels gzipped, and step 2 dumps the SASS of the D = 64 and D = 128 backward entries of both fatbins
# (cuobjdump, if the machine has it) so that the instruction counts per step can be compared.
set -uo pipefail
root=$PWD
pa=$root/.gpupack
pb=/tmp/pb
res=/tmp/c1
mkdir -p "$res/san" "$res/verify" "$res/ab" "$pb/lib"
exec > >(tee "$OUT/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
pack_logs() { tar czf "$OUT/c1.tgz" -C /tmp --exclude=c1/specs c1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
ln -s "$pa/runtime" "$pb/runtime"
cp "$pa"/*.sh "$pb/"
sed 's/6fbebea27a5d/bwd-desc-add-a98c291/' "$pa/saw" > "$pb/saw"; chmod +x "$pb/saw"
cp "$pa"/lib/*.jar "$pb/lib/"
mkdir -p "$pa/var/none"
gunzip -c "$pa/var/da.fatbin.gz" > /tmp/da.fatbin
python3 - "$pa/lib/saw-engine-0.1.0-SNAPSHOT.jar" /tmp/da.fatbin "$pa/var/none" "$pb/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import os, sys, zipfile
src, fat, classes, dst = sys.argv[1:]
new = {"saw/kernels/saw_attention.fatbin": open(fat, "rb").read()}
for d, _, files in os.walk(classes):
    for f in files:
        new[os.path.relpath(os.path.join(d, f), classes)] = open(os.path.join(d, f), "rb").read()
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for i in a.infolist():
        b.writestr(i, new.pop(i.filename, None) or a.read(i.filename))
assert not new, new.keys()
print("pack B engine jar written")
PY
"$pb/saw" env > "$res/env.txt" 2>&1; head -4 "$res/env.txt"

el "1. sanitizers and verify on pack B"
san() { # NAME TOOL MASK ARGS...
  local name=$1 tool=$2 mask=$3; shift 3
  local extra="" rc
  [[ $tool == racecheck ]] && extra="--racecheck-report all"
  timeout -k 5 120 compute-sanitizer --tool "$tool" $extra --print-limit 40 --error-exitcode 9 "$pb/runtime/bin/java" \
    -Djava.awt.headless=true ${JOPTS:-} -cp "$pb/lib/*" saw.app.Main verify "$mask" "$@" --block 128x128 --backend gpu \
    > "$res/san/$name-$tool.log" 2>&1; rc=$?
  echo "$name $tool rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san/$name-$tool.log" | tail -1)"
}
DOCS='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
pids=()
san d64-padded racecheck "$DOCS" --seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --scale 1 --pass fwd,bwd & pids+=($!)
san d64-padded memcheck "$DOCS" --seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --scale 1 --pass fwd,bwd & pids+=($!)
san d64-padded synccheck "$DOCS" --seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --scale 1 --pass fwd,bwd & pids+=($!)
san d128-padded racecheck "$DOCS" --seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 --pass fwd,bwd & pids+=($!)
san d128-causal-fp16 racecheck causal --seq 3000 --heads 4 --kv-heads 2 --head-dim 128 --dtype fp16 --softcap 30 --pass fwd,bwd & pids+=($!)
JOPTS=-Dsaw.kernel.fwd=wgmma-ws san d64-padded-fwdws racecheck "$DOCS" --seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --pass fwd & pids+=($!)
verify() { # NAME ARGS...
  local name=$1; shift
  local out rc
  local blk="--block 128x128"
  [[ " $* " == *" --nsa "* || " $* " == *" --block "* ]] && blk=""  # NSA has its own block size; a case may set one
  # shellcheck disable=SC2086
  out=$(SAW_JAVA_OPTS="-Xmx8g ${VOPTS:-}" timeout -k 5 120 "$pb/saw" verify "$@" --backend gpu $blk 2>&1); rc=$?
  { echo "== verify $name $*"; echo "$out"; echo "rc=$rc"; } > "$res/verify/$name.log"
  echo "verify $name rc=$rc :: $(echo "$out" | awk '$1=="O"||$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}')"
  return $rc
}
vp=()
V() { verify "$@" & vp+=($!); }
V docs-fp16-d64 'and(causal,docs(700,1500,1200,500,3000,77))' --seq 6977 --batch 2 --heads 16 --kv-heads 16 --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd,bwd
V sinks-split-d64 'or(window(256),sinks(4))' --seq 16384 --batch 1 --heads 4 --kv-heads 4 --head-dim 64 --dtype fp16 --rows 16 --pass fwd,bwd
V empty-cols-d64 'window(100)' --seq 1000 --seq-kv 5000 --batch 4 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --softcap 20 --pass fwd,bwd
V padded-docs-d64 "$DOCS" --seq 6000 --batch 3 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --pass fwd,bwd
V causal-gqa-d64 causal --seq 1001 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --pass fwd,bwd
V causal-16k-d64 causal --seq 16384 --batch 1 --heads 16 --kv-heads 4 --head-dim 64 --dtype bf16 --rows 16 --pass fwd,bwd
V random-d64 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16 --rows 24 --pass fwd,bwd
V docs-gqa-d128 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --batch 4 --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 --pass fwd,bwd
V causal-16k-d128 causal --seq 16384 --batch 1 --heads 16 --kv-heads 8 --head-dim 128 --dtype bf16 --rows 16 --pass fwd,bwd
V window-softcap-d128 'window(256)' --seq 700 --seq-kv 8192 --batch 2 --heads 16 --head-dim 128 --dtype fp16 --softcap 20 --pass fwd,bwd
V nsa-d128 --nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 2048 --pass fwd,bwd
V nsa-d64 --nsa random --nsa-block 128 --nsa-s 32 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --seq 4100 --pass fwd,bwd
V d256-q128 causal --seq 3000 --heads 8 --kv-heads 2 --head-dim 256 --dtype bf16 --block 64x64 --pass fwd,bwd
VOPTS=-Dsaw.kernel.fwd256=wgmma V d256-q64 'and(causal,docs(700,1500,800))' --seq 3000 --heads 8 --kv-heads 4 --head-dim 256 --dtype fp16 --block 64x64 --pass fwd,bwd
V d128-q64 'and(causal,docs(300,500,170,30,64,900))' --seq 1964 --batch 2 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --block 64x64 --pass fwd,bwd
VOPTS=-Dsaw.kernel.fwd=wgmma-ws V ws-docs-d64 "$DOCS" --seq 6000 --batch 2 --heads 8 --kv-heads 4 --head-dim 64 --dtype bf16 --pass fwd
vfail=0
for p in "${vp[@]}"; do wait "$p" || vfail=$((vfail + 1)); done
el "verify failures: $vfail"
for p in "${pids[@]}"; do wait "$p"; done
el "sanitizers done"
pack_logs

el "2. SASS of the backward entries, main and desc-add"
if command -v cuobjdump >/dev/null; then
  mkdir -p "$res/sass"
  python3 -c "import zipfile,sys; open('/tmp/main.fatbin','wb').write(zipfile.ZipFile(sys.argv[1]).read('saw/kernels/saw_attention.fatbin'))" "$pa/lib/saw-engine-0.1.0-SNAPSHOT.jar"
  for f in bwd_wgmmaws_bf16_d64_q128_kv128 bwd_wgmmaws_bf16_d128_q128_kv128 fwd_wgmmaws_bf16_d128_q128_kv128 fwd_wgmmapp_bf16_d128_q128_kv128; do
    for v in main da; do
      cuobjdump -arch sm_90a -sass -fun "$f" /tmp/$v.fatbin > "$res/sass/$f-$v.sass" 2>&1 || echo "cuobjdump $f $v rc=$?"
      echo "$f $v: $(grep -cE '^ +/\*[0-9a-f]{4}\*/' "$res/sass/$f-$v.sass") instructions"
    done
  done
else
  echo "no cuobjdump here"
fi
pack_logs

el "3. A/B, D = 64 and 128 forward and backward"
. "$pa/specs-lib.sh"
mkdir -p "$res/specs"; frontier_specs "$res/specs"
bench() { # PACK TAG ROW ROUND EXTRA... (ROW: spec name, then -dD)
  local p=$1 tag=$2 sp=$3 r=$4; shift 4
  local spec=${sp%-d*} d=${sp##*-d}
  timeout -k 5 120 "$p/saw" bench "$res/specs/$spec.json" --block 128x128 --head-dim "$d" --pass fwd,bwd --reps 10 --warmup 3 \
    --backend gpu --out "$res/ab/$tag-$sp-r$r.jsonl" "$@" >> "$res/ab/bench.log" 2>&1 || echo "bench $tag $sp r$r rc=$?"
}
rows=("causal-8k-d64" "causal-16k-d64" "gqa-32k-d64|--kv-heads 8" "docs8-16k-d64" "causal-8k-d128" "causal-16k-d128"
      "gqa-32k-d128|--kv-heads 8" "docs8-16k-d128" "window1024-16k-d128" "docs64-32k-d128")
for r in 1 2; do
  for row in "${rows[@]}"; do
    IFS='|' read -r sp extra <<<"$row"
    # shellcheck disable=SC2086
    if (( r % 2 )); then bench "$pa" A "$sp" $r $extra; bench "$pb" B "$sp" $r $extra
    else bench "$pb" B "$sp" $r $extra; bench "$pa" A "$sp" $r $extra; fi
  done
  el "round $r done"
  (( $(date +%s) - t0 < 420 )) || break
done
python3 - "$res/ab" <<'PY' | tee "$res/ab/table.txt"
import glob, json, os, re, sys, statistics
d = sys.argv[1]
t = {}
for f in glob.glob(os.path.join(d, "*.jsonl")):
    tag, sp, r = re.match(r"([AB])-(.*)-r(\d+)\.jsonl", os.path.basename(f)).groups()
    for line in open(f):
        j = json.loads(line)
        if j.get("status") == "ok" and j.get("pass") in ("fwd", "bwd"):
            t.setdefault((sp, j["pass"]), {}).setdefault(int(r), {})[tag] = j["useful_tflops"]
print(f"{'row':20} {'pass':4} {'round':>5} {'A main':>8} {'B desc':>8} {'B/A':>6}")
for key in sorted(t):
    ratios = []
    for r in sorted(t[key]):
        x = t[key][r]
        if "A" in x and "B" in x:
            ratios.append(x["B"] / x["A"])
            print(f"{key[0]:20} {key[1]:4} {r:>5} {x['A']:8.1f} {x['B']:8.1f} {ratios[-1]:6.3f}")
    if ratios:
        print(f"{key[0]:20} {key[1]:4} {'all':>5} {'':8} {'':8} {min(ratios):.3f}-{max(ratios):.3f}")
PY
el done
pack_logs
