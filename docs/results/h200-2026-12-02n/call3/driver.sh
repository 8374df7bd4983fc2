#!/usr/bin/env bash
# Session 14, call 3: the D = 64 persistent forward (attention_fwd_wgmma_ws, wgmma-pp and wgmma-ws) with each consumer
# warpgroup's whole Q (4 k16 steps, 16 registers a thread) as wgmma A fragments (branch d64-qregs): Q K^T reads only K
# from shared memory, and the Q buffer is released once the fragments are loaded. Two sm_90a fatbins, host = main's engine:
#   base  = main 7b0643b's kernels (.varjar/qb.fatbin: the D = 256 change of calls 1-2, D = 64 as before)
#   d64q  = branch d64-qregs (.varjar/d64q.fatbin); PTX differs from base in the four fwd_wgmma{ws,pp}_*_d64_q128_kv128 only
#  1. D = 64 verifies (both families), compute-sanitizer memcheck / racecheck / synccheck (2-3 rows per CTA)
#  2. forward A/B at D = 64, 128x128, four rounds in rotated order, 20 reps; cuDNN SDPA D = 64 before and after
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/n3
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
declare -A FB=([base]=qb [d64q]=d64q)
for v in base d64q; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  jar "$root/.varjar/engine-d64-nofatbin.jar" "$root/.varjar/${FB[$v]}.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
done
cuobjdump --dump-sass --function fwd_wgmmapp_bf16_d64_q128_kv128,fwd_wgmmaws_bf16_d64_q128_kv128 "$root/.varjar/d64q.fatbin" > "$res/sass.txt" 2>&1
awk '/Function : / {fn=$3} fn != "" { if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; if ($0 ~ /LDSM/) ls[fn]++; seen[fn]=1 }
  END { for (f in seen) printf "d64q %s HGMMA %d local %d LDSM %d\n", f, hg[f], lm[f], ls[f] }' "$res/sass.txt" | sort
rm -f "$res/sass.txt"
cat > "$res/cudnn.py" <<'PY'
# the peer that ran: cuDNN SDPA causal forward at D = 64, bf16, median of 10 CUDA-event timings after 3 warm-ups; GQA
# repeats K and V to the query heads before timing
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
def t(fn):
    ts = []
    for i in range(13):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort(); return (ts[4] + ts[5]) / 2
for D, name, B, H, HKV, S in ((64, "causal-8k", 4, 16, 16, 8192), (64, "causal-16k", 4, 16, 16, 16384), (64, "gqa-32k", 1, 32, 8, 32768)):
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
timeout -k 5 40 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn-before.txt"
el "1. checks"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
mask_spec "$res/specs" chunked128-16k 16384 4 16 '{ "chunked_causal": { "chunk": 128 } }'
vfail=0
verify() { # FAMILY ARGS...
  local fam=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$fam" timeout -k 5 90 /tmp/pack-d64q/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify [$fam] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify rc=$rc [$fam] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
for fam in wgmma-pp wgmma-ws; do
  verify $fam preset:causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --head-dim 64 --dtype bf16 --rows 24 --pass fwd
  verify $fam preset:causal --seq 16384 --batch 2 --heads 16 --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd
  verify $fam "$res/specs/docs64-32k.json" --head-dim 64 --dtype bf16 --rows 32 --pass fwd --block 128x128
  verify $fam 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 64 --dtype fp16 --rows 32 --pass fwd --block 128x128
  verify $fam 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim 64 --block 128x128
  verify $fam "$res/specs/chunked128-16k.json" --head-dim 64 --dtype bf16 --rows 32 --pass fwd --block 128x128
  verify $fam 'random(128,128,10,3)' --seq 16384 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --sinks --softcap 30 --rows 16 --pass fwd --block 128x128
done
for fam in wgmma-pp wgmma-ws; do
  for tool in memcheck racecheck synccheck; do
    [[ $vfail == 0 ]] || break
    o=$(timeout -k 5 90 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
        -Dsaw.kernel.fwd=$fam -cp "/tmp/pack-d64q/lib/*" saw.app.Main verify 'and(causal,docs(900,1000,1300,500,700,300,800))' \
        --seq 5500 --heads 8 --kv-heads 2 --head-dim 64 --block 128x128 --dtype bf16 --sinks --pass fwd --backend gpu 2>&1); rc=$?
    echo "$o" >> "$res/sanitizer.log"
    echo "$tool $fam rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done
el "2. A/B"
bench() { # TAG VARIANT FAMILY SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$3" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$4.json" --dtype bf16 --pass fwd \
    --reps 20 --warmup 3 --backend gpu --block 128x128 --head-dim 64 --out "$res/ab/$1-$2.jsonl" $5 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
ROWS=("causal-8k wgmma-pp|" "causal-16k wgmma-pp|" "gqa-32k wgmma-pp|--kv-heads 8" "causal-8k wgmma-ws|" "docs64-32k wgmma-pp|"
      "docs8-16k wgmma-pp|" "window1024-16k wgmma-pp|" "chunked128-16k wgmma-pp|")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3 4; do
    case $r in 1|3) vs="base d64q";; 2|4) vs="d64q base";; esac
    for row in "${ROWS[@]}"; do
      left 420 || break
      IFS='|' read -r sf extra <<<"$row"; read -r sp fam <<<"$sf"
      for v in $vs; do bench "$sp-${fam#wgmma-}-r$r" "$v" "$fam" "$sp" "$extra"; done
    done
    el "round $r done"
  done
fi
el "cuDNN after"
left 470 && timeout -k 5 40 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn-after.txt"
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
    if "base" in v and "d64q" in v:
        x = v["base"][0] / v["d64q"][0]
        print(f'{tag:26s}  base {v["base"][0]:7.3f} ms {v["base"][1]:6.1f}  d64q {v["d64q"][0]:7.3f} ms {v["d64q"][1]:6.1f}  {x:.3f}x  [{v["base"][2]}]')
        row = tag.rsplit("-r", 1)[0]
        summary[row]["x"].append(x); summary[row]["base"].append(v["base"][1]); summary[row]["d64q"].append(v["d64q"][1])
print()
print("row: median over rounds of base time / d64q time (min-max); median TFLOP/s")
for row, s in sorted(summary.items()):
    print(f'{row:22s} {statistics.median(s["x"]):.3f}x ({min(s["x"]):.3f}-{max(s["x"]):.3f})  base {statistics.median(s["base"]):.1f}  d64q {statistics.median(s["d64q"]):.1f}')
PY
el done
cd "$OUT" && tar czf n3-logs.tgz n3 && rm -rf n3/ab n3/specs n3/bench.log n3/verify.log n3/sanitizer.log && ls -la "$OUT/n3"
