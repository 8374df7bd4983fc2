#!/usr/bin/env bash
# Session 15, call 1: the conditional O rescale (the kept row max moves only when a tile's passes it by more than 2^8 in
# P; a warp skips the O multiply when none of its rows moved) against main, in every Hopper forward (D = 64, 128, 256).
# main.fatbin = 57b67bf's kernels, cr.fatbin = the working tree's; both sm_90a only, built the same way; host code of
# both = .gpupack-n8's engine jar (756b4be, whose host code equals 57b67bf's) without its fatbin.
set -uo pipefail
root=$PWD
pack=$root/.gpupack-n8
res=$OUT/o1
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
VARS="main cr"
for v in $VARS; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  jar "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
done
cuobjdump --dump-sass --function fwd_wgmmapp_bf16_d128_q128_kv128,fwd_wgmmapp_bf16_d256_q128_kv64 "$root/.varjar/cr.fatbin" > "$res/sass.txt" 2>&1
awk '/Function : / {fn=$3} fn != "" { if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; if ($0 ~ /VOTE/) vo[fn]++; seen[fn]=1 }
  END { for (f in seen) printf "cr %s HGMMA %d local %d VOTE %d\n", f, hg[f], lm[f], vo[f] }' "$res/sass.txt" | sort
rm -f "$res/sass.txt"
cat > "$res/cudnn.py" <<'PY'
# the peer that ran: cuDNN SDPA causal forward, bf16, median of 10 CUDA-event timings after 3 warm-ups; GQA repeats K
# and V to the query heads before timing
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
def t(fn):
    ts = []
    for i in range(13):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort(); return (ts[4] + ts[5]) / 2
for D, name, B, H, HKV, S in ((64, "causal-8k", 4, 16, 16, 8192), (128, "causal-8k", 4, 16, 16, 8192), (128, "causal-16k", 4, 16, 16, 16384),
                              (256, "w-causal-8k", 4, 16, 16, 8192), (256, "w-causal-16k", 2, 16, 16, 16384)):
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16).repeat_interleave(H // HKV, 1) for _ in range(2))
    flops = 4 * B * H * D * S * (S + 1) / 2
    with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        ms = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    print(f"cudnn D={D} {name} {ms:.3f} ms {flops / ms / 1e9:.1f} TF", flush=True)
    del q, k, v
PY
el "cuDNN before"
timeout -k 5 60 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn-before.txt"
el "1. verify (cr)"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
vfail=0
verify() { # OPTS ARGS...
  local opts=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g $opts" timeout -k 5 90 /tmp/pack-cr/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify [$opts] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify rc=$rc [$opts] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
  if [[ $rc != 0 ]]; then  # the same case on main, to tell the change from the case
    out=$(SAW_JAVA_OPTS="-Xmx48g $opts" timeout -k 5 90 /tmp/pack-main/saw verify "$@" --backend gpu 2>&1); rc=$?
    echo "  main: rc=$rc :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
  fi
}
for fam in wgmma-pp wgmma-ws; do
  F="-Dsaw.kernel.fwd=$fam"
  for D in 64 128; do
    verify "$F" preset:causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --head-dim $D --dtype bf16 --rows 24 --pass fwd
    verify "$F" preset:causal --seq 4096 --heads 8 --head-dim $D --dtype bf16 --scale 1 --pass fwd
    verify "$F" 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim $D --dtype fp16 --rows 32 --pass fwd --block 128x128
    verify "$F" 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim $D --block 128x128 --scale 0.7
    verify "$F" 'random(128,128,10,3)' --seq 8192 --heads 8 --kv-heads 2 --head-dim $D --dtype bf16 --sinks --softcap 30 --rows 16 --pass fwd --block 128x128
  done
  verify "$F" "$res/specs/docs64-32k.json" --head-dim 128 --dtype bf16 --rows 32 --pass fwd --block 128x128 --scale 1
  W="--head-dim 256 --block 64x64"
  verify "$F" causal --seq 2048 --heads 8 --kv-heads 2 $W --dtype fp16 --sinks --pass fwd
  verify "$F" causal --seq 2048 --heads 4 $W --dtype bf16 --scale 0.5 --pass fwd,bwd
  verify "$F" 'docs(700,600,500,100)' --seq 2000 --heads 2 $W --dtype fp16 --sinks --softcap 50 --pass fwd
  verify "$F" causal --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 2 $W --dtype bf16 --sinks --scale 1 --pass fwd
done
verify "-Dsaw.kernel.fwd256=wgmma" causal --seq 2048 --heads 4 --kv-heads 1 --head-dim 256 --block 64x64 --dtype bf16 --scale 0.5 --sinks --pass fwd
verify "-Dsaw.kernel.fwd=wgmma-overlap" preset:causal --seq 4096 --heads 4 --head-dim 128 --dtype bf16 --scale 1 --pass fwd
verify "-Dsaw.kernel.fwd=wgmma" preset:causal --seq 4096 --heads 4 --head-dim 128 --dtype fp16 --scale 1 --sinks --pass fwd
el "verify failures: $vfail"
for fam in wgmma-pp wgmma-ws; do
  for tool in memcheck racecheck; do
    [[ $vfail == 0 ]] || break
    left 200 || break
    o=$(timeout -k 5 90 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
        -Dsaw.kernel.fwd=$fam -cp "/tmp/pack-cr/lib/*" saw.app.Main verify 'and(causal,docs(900,1000,1300,500,700,300,800))' \
        --seq 5500 --heads 8 --kv-heads 2 --head-dim 128 --block 128x128 --dtype bf16 --sinks --scale 1 --pass fwd --backend gpu 2>&1); rc=$?
    echo "$o" >> "$res/sanitizer.log"
    echo "$tool $fam rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done
el "2. A/B"
spec() { # NAME S B H (causal, 64x64)
  cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 64, "kv": 64 }, "mask": { "causal": { "offset": 0 } } }
JSON
}
spec w-causal-8k 8192 4 16
spec w-causal-16k 16384 2 16
spec w-gqa-16k 16384 1 32
bench() { # TAG VARIANT FAMILY SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$3" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$4.json" --dtype bf16 --pass fwd \
    --reps 20 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $5 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
W='--block 64x64 --head-dim 256'
N='--block 128x128 --head-dim 128'
S='--block 128x128 --head-dim 64'
ROWS=("causal-8k wgmma-pp|$S" "causal-16k wgmma-pp|$S" "gqa-32k wgmma-pp|$S --kv-heads 8" "causal-8k wgmma-ws|$S"
      "causal-8k wgmma-pp|$N" "causal-16k wgmma-pp|$N" "gqa-32k wgmma-pp|$N --kv-heads 8" "docs8-16k wgmma-pp|$N"
      "docs64-32k wgmma-pp|$N" "window1024-16k wgmma-pp|$N"
      "w-causal-8k wgmma-pp|$W" "w-causal-8k wgmma-ws|$W" "w-causal-16k wgmma-pp|$W" "w-gqa-16k wgmma-pp|$W --kv-heads 8")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3 4; do
    case $r in 1|3) vs="main cr";; 2|4) vs="cr main";; esac
    for row in "${ROWS[@]}"; do
      left 540 || break
      IFS='|' read -r sf extra <<<"$row"; read -r sp fam <<<"$sf"
      dtag=$(echo "$extra" | sed -E 's/.*--head-dim ([0-9]+).*/d\1/')
      for v in $vs; do bench "$dtag-$sp-${fam#wgmma-}-r$r" "$v" "$fam" "$sp" "$extra"; done
    done
    el "round $r done"
  done
fi
el "cuDNN after"
left 565 && timeout -k 5 30 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn-after.txt"
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
    if "main" in v and "cr" in v:
        x = v["main"][0] / v["cr"][0]
        print(f'{tag:30s}  main {v["main"][0]:7.3f} ms {v["main"][1]:6.1f}  cr {v["cr"][0]:7.3f} ms {v["cr"][1]:6.1f}  {x:.3f}x  [{v["main"][2]}]')
        row = tag.rsplit("-r", 1)[0]
        summary[row]["x"].append(x); summary[row]["main"].append(v["main"][1]); summary[row]["cr"].append(v["cr"][1])
print()
print("row: median over rounds of main time / cr time (min-max); median TFLOP/s")
for row, s in sorted(summary.items()):
    print(f'{row:26s} {statistics.median(s["x"]):.3f}x ({min(s["x"]):.3f}-{max(s["x"]):.3f})  main {statistics.median(s["main"]):.1f}  cr {statistics.median(s["cr"]):.1f}')
PY
el done
cd "$OUT" && tar czf o1-logs.tgz o1 && rm -rf o1/ab o1/specs o1/bench.log o1/sanitizer.log o1/verify.log && ls -la "$OUT/o1"
