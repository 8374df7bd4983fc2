#!/usr/bin/env bash
# Session 14, call 2: the same three fatbins as call 1 (main, qa, qb; see call1/driver.sh), measured again because call 1's
# rounds moved by 3-6% on the same kernel: four rounds in rotated order, 20 reps each; cuDNN SDPA at D = 256 before and
# after the rounds; compute-sanitizer on qb's D = 256 forward (both families).
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
res=$OUT/n2
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
for v in main qa qb; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  jar "$root/.varjar/engine-d64-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar"
done
cat > "$res/cudnn.py" <<'PY'
# the peer that ran: cuDNN SDPA causal forward at D = 256, bf16, median of 10 CUDA-event timings after 3 warm-ups; GQA
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
for D, name, B, H, HKV, S in ((256, "w-causal-8k", 4, 16, 16, 8192), (256, "w-causal-16k", 2, 16, 16, 16384), (256, "w-gqa-16k", 1, 32, 8, 16384)):
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
el "sanitizers (qb, D = 256)"
for fam in wgmma-pp wgmma-ws; do
  for tool in memcheck racecheck $([[ $fam == wgmma-pp ]] && echo synccheck); do
    o=$(timeout -k 5 60 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
        -Dsaw.kernel.fwd=$fam -cp "/tmp/pack-qb/lib/*" saw.app.Main verify 'and(causal,docs(200,300,100))' --seq 640 --heads 2 \
        --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x64 --sinks --softcap 30 --pass fwd --backend gpu 2>&1); rc=$?
    echo "$o" >> "$res/sanitizer.log"
    echo "$tool qb $fam rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done
el "A/B"
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
bench() { # TAG VARIANT FAMILY SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g -Dsaw.kernel.fwd=$3" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$4.json" --dtype bf16 --pass fwd \
    --reps 20 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $5 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
W='--block 64x64 --head-dim 256'
N='--block 128x128 --head-dim 128'
ROWS=("w-causal-8k wgmma-pp|$W" "w-causal-8k wgmma-ws|$W" "w-causal-16k wgmma-pp|$W" "w-causal-16k wgmma-ws|$W"
      "w-gqa-16k wgmma-pp|$W --kv-heads 8" "w-gqa-16k wgmma-ws|$W --kv-heads 8"
      "causal-16k wgmma-pp|$N" "docs8-16k wgmma-pp|$N" "docs64-32k wgmma-pp|$N" "window1024-16k wgmma-pp|$N")
for r in 1 2 3 4; do
  case $r in 1) vs="main qa qb";; 2) vs="qb main qa";; 3) vs="qa qb main";; 4) vs="main qb qa";; esac
  for row in "${ROWS[@]}"; do
    left 500 || break
    IFS='|' read -r sf extra <<<"$row"; read -r sp fam <<<"$sf"
    for v in $vs; do
      [[ $sp != w-* && $v == qa ]] && continue
      bench "$sp-${fam#wgmma-}-r$r" "$v" "$fam" "$sp" "$extra"
    done
  done
  el "round $r done"
done
el "cuDNN after"
left 540 && timeout -k 5 40 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn-after.txt"
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
    line = f'{tag:26s}'
    for var in ("main", "qa", "qb"):
        if var in v: line += f'  {var} {v[var][0]:7.3f} ms {v[var][1]:6.1f}'
    for var in ("qa", "qb"):
        if "main" in v and var in v:
            line += f'  {var}/main {v["main"][0] / v[var][0]:.3f}x'
            summary[tag.rsplit("-r", 1)[0]][var].append(v["main"][0] / v[var][0])
    for var in ("main", "qa", "qb"):
        if var in v: summary[tag.rsplit("-r", 1)[0]][var + "_tf"].append(v[var][1])
    print(line + f'  [{v.get("main", ("", "", "?"))[2]}]')
print()
print("row: median over rounds of main time / variant time (min-max); median TFLOP/s per variant")
for row, s in sorted(summary.items()):
    parts = [f'{row:22s}']
    for var in ("qa", "qb"):
        if s[var]: parts.append(f'{var} {statistics.median(s[var]):.3f}x ({min(s[var]):.3f}-{max(s[var]):.3f})')
    for var in ("main", "qa", "qb"):
        if s[var + "_tf"]: parts.append(f'{var} {statistics.median(s[var + "_tf"]):.1f}')
    print("  ".join(parts))
PY
el done
cd "$OUT" && tar czf n2-logs.tgz n2 && rm -rf n2/ab n2/specs n2/bench.log n2/sanitizer.log && ls -la "$OUT/n2"
