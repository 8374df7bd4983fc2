#!/usr/bin/env bash
# Session 14, call 1: Q K^T with each consumer warpgroup's Q (part or all of it) held as wgmma A fragments in registers,
# so those k16 steps read only K from shared memory (branch d256-qregs). Three sm_90a fatbins of the same source, host =
# main's engine (.varjar/engine-d64-nofatbin.jar, the same host code as main b661caa):
#   main  = main b661caa
#   qa    D = 256 128-row forward: 4 k16 steps (one 64-column panel, 16 registers), setmaxnreg 40 / 232
#           D = 128 persistent forward: 4 k16 steps (half of Q, 16 registers), 56 / 224
#   qb    D = 256: 8 k16 steps (two panels, 32 registers), 24 / 240
#           D = 128: all 8 k16 steps (32 registers); the Q buffer is released once the fragments are loaded, so the next
#           row's Q loads a whole row ahead; 56 / 224
#   ptxas (nvcc 13.0): qa D = 256 ws 0 / pp 28-40 bytes of spills, D = 128 4 bytes; qb D = 256 ws 0 / pp 28-40,
#   D = 128 ws 12 / pp 20-24 bytes.
#  0. SASS counts (HGMMA, local memory) of the entries that changed
#  1. verify (forward; some forward + backward), both families, D = 256 and 128
#  2. forward A/B, rotated order, 10 reps; cuDNN SDPA (D = 256 and 128) in the same call
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/n1
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
VARS="main qa qb"
for v in $VARS; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  jar "$root/.varjar/engine-d64-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
done
el "0. SASS"
FNS=fwd_wgmmapp_bf16_d256_q128_kv64,fwd_wgmmaws_bf16_d256_q128_kv64,fwd_wgmmapp_bf16_d128_q128_kv128,fwd_wgmmaws_bf16_d128_q128_kv128
for v in $VARS; do
  cuobjdump --dump-sass --function $FNS "$root/.varjar/$v.fatbin" > "$res/sass-$v.txt" 2>&1
  awk -v V=$v '/Function : / {fn=$3} fn != "" { if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; if ($0 ~ /LDSM/) ls[fn]++; seen[fn]=1 }
    END { for (f in seen) printf "%s %s HGMMA %d local %d LDSM %d\n", V, f, hg[f], lm[f], ls[f] }' "$res/sass-$v.txt" | sort
done
el "1. checks"
vfail=0
verify() { # VARIANT FAMILY ARGS...
  local v=$1 fam=$2; shift 2
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$fam" timeout -k 5 60 /tmp/pack-$v/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify [$v $fam] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify rc=$rc [$v $fam] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
W='--head-dim 256 --block 64x64'
for fam in wgmma-pp wgmma-ws; do
  verify qb $fam causal --seq 2048 --heads 4 --dtype bf16 --pass fwd,bwd $W
  verify qb $fam causal --seq 8192 --batch 1 --heads 8 --kv-heads 2 --dtype fp16 --sinks --rows 24 --pass fwd $W
  verify qb $fam 'docs(700,600,500,100)' --seq 2000 --heads 2 --dtype fp16 --sinks --softcap 50 --pass fwd $W
  verify qb $fam 'random(64,64,5,11)' --seq 2048 --heads 4 --kv-heads 1 --dtype bf16 --sinks --pass fwd $W
  verify qb $fam 'or(sinks(16),window(128,128))' --seq 1000 --seq-kv 1500 --heads 2 --dtype fp16 --softcap 30 --pass fwd $W
  verify qa $fam 'docs(700,600,500,100)' --seq 2000 --heads 2 --dtype bf16 --softcap 50 --pass fwd $W
  for v in qb qa; do
    verify $v $fam causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 --pass fwd
    verify $v $fam 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim 128 --block 128x128
  done
  verify qb $fam 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 128 --dtype fp16 --softcap 30 --rows 32 --pass fwd --block 128x128
  verify qb $fam 'random(128,128,10,3)' --seq 16384 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --sinks --rows 16 --pass fwd --block 128x128
done
el "2. A/B"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
spec() { # NAME S B H MASK_JSON
  cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 64, "kv": 64 }, "mask": $5 }
JSON
}
CAUSAL='{ "causal": { "offset": 0 } }'
spec w-causal-8k 8192 4 16 "$CAUSAL"
spec w-causal-16k 16384 2 16 "$CAUSAL"
spec w-gqa-16k 16384 1 32 "$CAUSAL"
spec w-window1024-8k 8192 4 16 '{ "sliding_window": { "left": 1024, "right": 0 } }'
spec w-docs8-8k 8192 4 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [409, 819, 1228, 819, 1638, 819, 1638, 822] } } ] }"
bench() { # TAG VARIANT FAMILY SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$3" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$4.json" --dtype bf16 --pass fwd \
    --reps 10 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $5 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
W='--block 64x64 --head-dim 256'
N='--block 128x128 --head-dim 128'
ROWS=("w-causal-8k wgmma-pp|$W" "w-causal-8k wgmma-ws|$W" "causal-8k wgmma-pp|$N" "causal-16k wgmma-pp|$N" "w-causal-16k wgmma-pp|$W"
      "w-causal-16k wgmma-ws|$W" "gqa-32k wgmma-pp|$N --kv-heads 8" "docs8-16k wgmma-pp|$N" "window1024-16k wgmma-pp|$N"
      "docs64-32k wgmma-pp|$N" "w-gqa-16k wgmma-pp|$W --kv-heads 8" "w-gqa-16k wgmma-ws|$W --kv-heads 8" "causal-8k wgmma-ws|$N"
      "w-window1024-8k wgmma-pp|$W" "w-docs8-8k wgmma-pp|$W")
if [[ $vfail == 0 ]]; then
  for r in 1 2; do
    case $r in 1) vs="main qa qb";; 2) vs="qb qa main";; esac
    for row in "${ROWS[@]}"; do
      left $([[ $r == 1 ]] && echo 440 || echo 520) || break
      IFS='|' read -r sf extra <<<"$row"; read -r sp fam <<<"$sf"
      for v in $vs; do bench "$sp-${fam#wgmma-}-r$r" "$v" "$fam" "$sp" "$extra"; done
    done
  done
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
for D, name, B, H, HKV, S in ((256, "w-causal-8k", 4, 16, 16, 8192), (256, "w-causal-16k", 2, 16, 16, 16384), (256, "w-gqa-16k", 1, 32, 8, 16384),
                              (128, "causal-8k", 4, 16, 16, 8192), (128, "causal-16k", 4, 16, 16, 16384), (128, "gqa-32k", 1, 32, 8, 32768)):
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16).repeat_interleave(H // HKV, 1) for _ in range(2))
    flops = 4 * B * H * D * S * (S + 1) / 2
    with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        ms = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    print(f"cudnn D={D} {name} {ms:.3f} ms {flops / ms / 1e9:.1f} TF", flush=True)
    del q, k, v
PY
  left 560 && timeout -k 5 35 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn.txt"
  python3 - "$res/ab" <<'PY' | tee "$res/ab.txt"
import collections, glob, json, os, sys
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    if ok: rows[tag][var] = (ok[-1]["median_ms"], ok[-1]["useful_tflops"], ok[-1].get("kernel", "?"))
for tag in sorted(rows):
    v = rows[tag]
    line = f'{tag:26s}'
    for var in ("main", "qa", "qb"):
        if var in v: line += f'  {var} {v[var][0]:7.3f} ms {v[var][1]:6.1f}'
    for var in ("qa", "qb"):
        if "main" in v and var in v: line += f'  {var}/main {v["main"][0] / v[var][0]:.3f}x'
    print(line + f'  [{v.get("main", ("", "", "?"))[2]}]')
PY
fi
el done
cd "$OUT" && tar czf n1-logs.tgz n1 && rm -rf n1/ab n1/specs n1/bench.log n1/verify.log n1/sass-*.txt && ls -la "$OUT/n1"
