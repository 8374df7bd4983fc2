#!/usr/bin/env bash
# Session 16, call 4: does call 3's D = 256 gain of `mea` (1.026-1.082x on causal 8K, four rounds) hold on the other
# D = 256 rows, and is its 1% loss on D = 128 GQA 32K real? main = real build of 290cd8b (.gpupack-p1), mea =
# .varjar/mea.fatbin (branch mask-early without SAW_MASK_INDEX_AHEAD). Four interleaved rounds, 30 reps; cuDNN's D = 256
# causal forward beside them (torch SDPA, cuDNN backend, bf16, median of 10 CUDA-event timings).
set -uo pipefail
root=$PWD
pack=$root/.gpupack-p1
res=$OUT/p4
mkdir -p "$res/ab" "$res/specs"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
ln -s "$pack" /tmp/pack-main
d=/tmp/pack-mea; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
rm -f "$d"/lib/saw-engine-*.jar
python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/mea.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
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
timeout -k 5 60 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn-before.txt"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
spec() { # NAME S B H MASK (64x64)
  cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 64, "kv": 64 }, "mask": $5 }
JSON
}
C='{ "causal": { "offset": 0 } }'
spec w-causal-8k 8192 4 16 "$C"
spec w-causal-16k 16384 2 16 "$C"
spec w-gqa-16k 16384 1 32 "$C"
spec w-docs8-8k 8192 4 16 "{ \"and\": [ $C, { \"documents\": { \"lengths\": [$(doc_lengths 8192 5 10 15 10 20 10 20)] } } ] }"
out=$(SAW_JAVA_OPTS=-Xmx48g timeout -k 5 90 /tmp/pack-mea/saw verify "$res/specs/w-docs8-8k.json" --head-dim 256 --dtype bf16 --rows 16 --pass fwd --backend gpu 2>&1)
echo "verify mea rc=$? docs8 D=256 :: $(echo "$out" | awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}')"
bench() { # TAG VARIANT SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$3.json" --dtype bf16 --pass fwd \
    --reps 30 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $4 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
W='--block 64x64 --head-dim 256'
N='--block 128x128 --head-dim 128'
ROWS=("w-causal-8k|$W" "w-causal-16k|$W" "w-gqa-16k|$W --kv-heads 8" "w-docs8-8k|$W" "gqa-32k|$N --kv-heads 8" "causal-16k|$N")
for r in 1 2 3 4; do
  case $r in 1|3) vs="main mea";; 2|4) vs="mea main";; esac
  for row in "${ROWS[@]}"; do
    left 330 || break
    IFS='|' read -r sp extra <<<"$row"
    dtag=$(echo "$extra" | sed -E 's/.*--head-dim ([0-9]+).*/d\1/')
    for v in $vs; do bench "$dtag-$sp-r$r" "$v" "$sp" "$extra"; done
  done
  el "round $r done"
done
python3 - "$res/ab" <<'PY' | tee "$res/ab.txt"
import collections, glob, json, os, statistics, sys
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    if ok: rows[tag][var] = (ok[-1]["median_ms"], ok[-1].get("useful_tflops", 0), ok[-1].get("kernel", "?"))
summary = collections.defaultdict(list); tf = collections.defaultdict(list)
for tag in sorted(rows):
    v = rows[tag]
    if "main" in v and "mea" in v:
        x = v["main"][0] / v["mea"][0]
        print(f'{tag:24s}  main {v["main"][0]:7.3f} ms {v["main"][1]:6.1f}  mea {v["mea"][0]:7.3f} ms {v["mea"][1]:6.1f}  {x:.3f}x  [{v["main"][2]}]')
        row = tag.rsplit("-r", 1)[0]; summary[row].append(x); tf[row].append((v["main"][1], v["mea"][1]))
print()
for row, xs in sorted(summary.items()):
    print(f'{row:18s} main time / mea time: median {statistics.median(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f})  '
          f'TFLOP/s main {statistics.median(a for a, b in tf[row]):.1f} mea {statistics.median(b for a, b in tf[row]):.1f}')
PY
left 370 && timeout -k 5 40 python3 "$res/cudnn.py" 2>&1 | tee "$res/cudnn-after.txt"
el done
cd "$OUT" && tar czf p4-logs.tgz p4 && rm -rf p4/ab p4/specs p4/bench.log && ls -la p4
