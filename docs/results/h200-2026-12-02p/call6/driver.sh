#!/usr/bin/env bash
# Session 16, call 6: issue 13's D = 256 rows again, saw with the landed early mask loads (.gpupack-p1 with its engine
# jar's fatbin replaced by .varjar/mea.fatbin, whose source is 6966b4f's kernels) and cuDNN SDPA in three alternating
# rounds: causal 8K (B=4 H=16), causal 16K (B=2 H=16), GQA 32:8 16K (B=1), forward and backward, bf16. Otherwise the
# fifteenth session's call 4 driver unchanged (docs/results/h200-2026-12-02o/call4/driver.sh).
set -uo pipefail
root=$PWD
res=$OUT/p6
pack=/tmp/pack-mea
mkdir -p "$pack/lib"; ln -s "$root/.gpupack-p1/runtime" "$pack/runtime"; cp "$root"/.gpupack-p1/lib/*.jar "$pack/lib/"; cp "$root/.gpupack-p1/saw" "$pack/"
rm -f "$pack"/lib/saw-engine-*.jar
python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/mea.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY2'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY2
mkdir -p "$res/specs" "$res/saw"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
spec() { # NAME S B H
  cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 64, "kv": 64 }, "mask": { "causal": { "offset": 0 } } }
JSON
}
spec causal-8k 8192 4 16
spec causal-16k 16384 2 16
spec gqa-16k 16384 1 32
cat > "$res/cudnn.py" <<'PY'
# the peer that ran: cuDNN SDPA causal forward and backward at D = 256, bf16; median of 10 CUDA-event timings after 3
# warm-ups; GQA repeats K and V to the query heads as leaves (so only the attention is timed)
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
def t(fn, reps=10):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return (ts[4] + ts[5]) / 2
for name, B, H, HKV, S in (("causal-8k", 4, 16, 16, 8192), ("causal-16k", 2, 16, 16, 16384), ("gqa-16k", 1, 32, 8, 16384)):
    D = 256
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16).requires_grad_()
    k, v = (torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16).repeat_interleave(H // HKV, 1).requires_grad_() for _ in range(2))
    do = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
    flops = 4 * B * H * D * S * (S + 1) / 2
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        with torch.no_grad():
            f = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        b = t(lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True))
    print(f"cudnn {name} fwd {f:.3f} ms {flops / f / 1e9:.1f} TF bwd {b:.3f} ms {2.5 * flops / b / 1e9:.1f} TF fwd+bwd {f + b:.3f} ms", flush=True)
    del q, k, v, do, out
PY
for r in 1 2 3; do
  left 200 || break
  if [[ $r == 2 ]]; then timeout -k 5 60 python3 "$res/cudnn.py" 2>&1 | sed "s/^/r$r /" | tee -a "$res/cudnn.txt"; fi
  for row in "causal-8k|" "causal-16k|" "gqa-16k|--kv-heads 8"; do
    IFS='|' read -r sp extra <<<"$row"
    timeout -k 5 60 "$pack/saw" bench "$res/specs/$sp.json" --dtype bf16 --pass fwd,bwd --reps 10 --warmup 3 --backend gpu \
      --block 64x64 --head-dim 256 --out "$res/saw/$sp-r$r.jsonl" $extra >>"$res/bench.log" 2>&1 || echo "bench $sp r$r rc=$?"
  done
  if [[ $r != 2 ]]; then timeout -k 5 60 python3 "$res/cudnn.py" 2>&1 | sed "s/^/r$r /" | tee -a "$res/cudnn.txt"; fi
  el "round $r done"
done
python3 - "$res" <<'PY' | tee "$res/table.txt"
import collections, glob, json, os, re, statistics, sys
res = sys.argv[1]
saw = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(res + "/saw/*.jsonl")):
    sp = os.path.basename(f)[:-6].rsplit("-r", 1)[0]
    for r in (json.loads(l) for l in open(f) if l.strip()):
        if "median_ms" in r: saw[sp][r.get("pass", "?")].append((r["median_ms"], r["useful_tflops"], r.get("kernel", "?")))
cud = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(res + "/cudnn.txt"):
    m = re.match(r"r\d cudnn (\S+) fwd ([\d.]+) ms ([\d.]+) TF bwd ([\d.]+) ms ([\d.]+) TF", l)
    if m:
        cud[m[1]]["fwd"].append((float(m[2]), float(m[3]))); cud[m[1]]["bwd"].append((float(m[4]), float(m[5])))
print("per round: saw fwd ms / TF, bwd ms / TF, fwd+bwd ms; cuDNN the same")
for sp in ("causal-8k", "causal-16k", "gqa-16k"):
    s = saw[sp]; c = cud[sp]
    for i in range(max(len(s["fwd"]), len(c["fwd"]))):
        line = f"{sp:11s} r{i + 1}"
        if i < len(s["fwd"]) and i < len(s["bwd"]):
            line += f"  saw fwd {s['fwd'][i][0]:.3f} {s['fwd'][i][1]:.1f} bwd {s['bwd'][i][0]:.3f} {s['bwd'][i][1]:.1f} sum {s['fwd'][i][0] + s['bwd'][i][0]:.3f}"
        if i < len(c["fwd"]):
            line += f"  cudnn fwd {c['fwd'][i][0]:.3f} {c['fwd'][i][1]:.1f} bwd {c['bwd'][i][0]:.3f} {c['bwd'][i][1]:.1f} sum {c['fwd'][i][0] + c['bwd'][i][0]:.3f}"
        print(line)
print()
print("row: median over rounds; saw / cuDNN speed (cuDNN time / saw time); worst round pairing = slowest saw round against fastest cuDNN round")
for sp in ("causal-8k", "causal-16k", "gqa-16k"):
    s = saw[sp]; c = cud[sp]
    if not (s["fwd"] and s["bwd"] and c["fwd"]): continue
    sf = statistics.median(x[0] for x in s["fwd"]); sb = statistics.median(x[0] for x in s["bwd"])
    cf = statistics.median(x[0] for x in c["fwd"]); cb = statistics.median(x[0] for x in c["bwd"])
    ssum = [a[0] + b[0] for a, b in zip(s["fwd"], s["bwd"])]; csum = [a[0] + b[0] for a, b in zip(c["fwd"], c["bwd"])]
    print(f"{sp:11s} fwd saw {sf:.3f} cuDNN {cf:.3f} {cf / sf:.3f}x (worst {min(x[0] for x in c['fwd']) / max(x[0] for x in s['fwd']):.3f}x)"
          f"  bwd saw {sb:.3f} cuDNN {cb:.3f} {cb / sb:.3f}x  fwd+bwd saw {statistics.median(ssum):.3f} cuDNN {statistics.median(csum):.3f} "
          f"{statistics.median(csum) / statistics.median(ssum):.3f}x (worst {min(csum) / max(ssum):.3f}x)  [{s['fwd'][0][2]} / {s['bwd'][0][2]}]")
PY
el done
cd "$OUT" && tar czf p6-logs.tgz p6 && rm -rf p6/saw p6/specs p6/bench.log && ls -la "$OUT/p6"
