#!/usr/bin/env bash
# Written in the twenty-third session for the next one with a GPU (not run: the session's device time was spent).
# `uniform-bwd.patch` beside this driver (branch uniform-bwd): the backward's consumers broadcast the warpgroup index
# (BwdWg::seat) and each column's ColumnRef from lane 0 with __shfl_sync, so that the compiler can prove them
# warp-uniform and keep the stage addresses and wgmma descriptors made from them on the uniform datapath. Why: call 1's
# SASS of the D = 128 step loop (main) has 54 R2UR, 120 LOP3 and 104 IMAD against 32 HGMMA; the adds of call 4, which
# moved descriptor work from the uniform pipe to the regular integer pipes, cost that kernel 1-5%, so moving integer
# work the other way may pay. PTX: only the eight bwd_wgmmaws_* entries change (+26 lines at D = 128, +2 at D = 64);
# ptxas: no spills where main has none, and the D = 128 softcap entries spill 36 bytes instead of main's 52 (registers
# freed, as values that move to uniform registers would). The A/U rounds time the forward too, whose code is the same
# in both packs: its ratios are the round-to-round noise to judge the backward's by.
# Before the call: build main's sm_90a fatbin into .gpupack/var/main90.fatbin and the patch's into .gpupack/var/u.fatbin
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -gencode=arch=compute_90a,code=sm_90a -o X.fatbin saw_attention.cu
# (a pack from bench/gpu-pack.sh, its engine jar's fatbin emptied to fit the carry: see call 2-5's drivers), then
# 1. SASS: per step loop of bwd_wgmmaws_bf16_d128 / d64, instruction counts by opcode, A and U (is R2UR down?);
# 2. verify and compute-sanitizer on pack U; 3. A/U on the backward rows, four rounds alternating. About 4 minutes.
set -uo pipefail
root=$PWD
pb=/tmp/pb
res=/tmp/cu
mkdir -p "$res/san" "$res/verify" "$res/ab" "$pb/lib"
exec > >(tee "$OUT/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
pack_logs() { tar czf "$OUT/cu.tgz" -C /tmp --exclude=cu/specs cu; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
put_fatbin() { # SRC_JAR FATBIN DST_JAR
  python3 - "$@" <<'PY'
import sys, zipfile
src, fat, dst = sys.argv[1:]
blob = open(fat, "rb").read()
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for i in a.infolist():
        b.writestr(i, blob if i.filename == "saw/kernels/saw_attention.fatbin" else a.read(i.filename))
print("engine jar written:", dst)
PY
}
# pack A at /tmp/pa, pack U at /tmp/pb
pa=/tmp/pa
for p in "$pa" "$pb"; do
  mkdir -p "$p/lib"; ln -sfn "$root/.gpupack/runtime" "$p/runtime"; cp "$root"/.gpupack/*.sh "$p/"; cp "$root"/.gpupack/lib/*.jar "$p/lib/"
done
sed 's/:-[0-9a-z-]*}/:-main}/' "$root/.gpupack/saw" > "$pa/saw"
sed 's/:-[0-9a-z-]*}/:-uniform-bwd}/' "$root/.gpupack/saw" > "$pb/saw"
chmod +x "$pa/saw" "$pb/saw"
put_fatbin "$root/.gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar" "$root/.gpupack/var/main90.fatbin" "$pa/lib/saw-engine-0.1.0-SNAPSHOT.jar"
put_fatbin "$root/.gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar" "$root/.gpupack/var/u.fatbin" "$pb/lib/saw-engine-0.1.0-SNAPSHOT.jar"
"$pb/saw" env > "$res/env.txt" 2>&1; head -4 "$res/env.txt"

el "0. SASS of the backward step loops, A and U"
if command -v cuobjdump >/dev/null; then
  mkdir -p "$res/sass"
  for f in bwd_wgmmaws_bf16_d128_q128_kv128 bwd_wgmmaws_bf16_d64_q128_kv128; do
    for v in main90 u; do
      cuobjdump -arch sm_90a -sass -fun "$f" "$root/.gpupack/var/$v.fatbin" > "$res/sass/$f-$v.sass" 2>&1 || echo "cuobjdump $f $v rc=$?"
    done
  done
  python3 - "$res/sass" <<'PY' | tee "$res/sass/loops.txt"
import collections, glob, os, re, sys
# the largest loop holding HGMMAs: a backward branch whose body has the most HGMMA instructions
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.sass"))):
    ins = []
    for line in open(f):
        m = re.match(r"\s+/\*([0-9a-f]+)\*/\s+(.*?);", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    best = None
    for addr, txt in ins:
        m = re.search(r"BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", txt)
        if m and m.group(1) and int(m.group(1), 16) < addr:
            body = [t for a, t in ins if int(m.group(1), 16) <= a <= addr]
            h = sum(t.split()[0].startswith("HGMMA") or " HGMMA" in t for t in body)
            if best is None or (h, -len(body)) > (best[0], -len(best[1])):
                best = (h, body)
    c = collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", t).split()[0].split(".")[0] for t in best[1])
    print(os.path.basename(f), "instructions", len(ins), "step loop", len(best[1]), " ".join(f"{k} {v}" for k, v in c.most_common(24)))
PY
else
  echo "no cuobjdump here"
fi
pack_logs

el "1. sanitizers and verify on pack U"
san() { # NAME TOOL MASK ARGS...
  local name=$1 tool=$2 mask=$3; shift 3
  local extra="" rc
  local blk="--block 128x128"
  [[ $mask == --nsa ]] && blk=""
  [[ $tool == racecheck ]] && extra="--racecheck-report all"
  # shellcheck disable=SC2086
  timeout -k 5 120 compute-sanitizer --tool "$tool" $extra --print-limit 40 --error-exitcode 9 "$pb/runtime/bin/java" \
    -Djava.awt.headless=true ${JOPTS:-} -cp "$pb/lib/*" saw.app.Main verify "$mask" "$@" $blk --backend gpu \
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
san nsa-d128 racecheck --nsa random --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 1100 --pass fwd,bwd & pids+=($!)
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

el "2. A/U, the backward at D = 64 and 128 (the forward is unchanged)"
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
for r in 1 2 3 4; do
  for row in "${rows[@]}"; do
    IFS='|' read -r sp extra <<<"$row"
    # shellcheck disable=SC2086
    if (( r % 2 )); then bench "$pa" A "$sp" $r $extra; bench "$pb" B "$sp" $r $extra
    else bench "$pb" B "$sp" $r $extra; bench "$pa" A "$sp" $r $extra; fi
  done
  el "round $r done"
  (( $(date +%s) - t0 < 330 )) || break
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
print(f"{'row':20} {'pass':4} {'round':>5} {'A':>8} {'U':>8} {'U/A':>6}")
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
