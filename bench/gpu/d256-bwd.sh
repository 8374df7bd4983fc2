#!/usr/bin/env bash
# Issue 13 on the H200, the head dim 256 backward (about 3 minutes; run from the repository root or the pack folder's
# parent, e.g. OUT=out .gpupack/d256-bwd.sh): (1) saw verify forward + backward at D=256 (dQ, dK, dV, and dSink with
# --sinks) over causal, window, documents with softcap, random blocks, GQA 4:1 and 2:1, Sq != Skv and ragged ends,
# bf16 and fp16, tiles 64x64 and 64x32, with and without sinks; two D <= 128 backward checks (the template they share
# changed); (2) compute-sanitizer memcheck and racecheck on one small D=256 forward + backward; (3) causal S=8192
# B=4 H=16 D=256 forward and backward: saw (64x64, 64x32) against FlexAttention (torch.compile, default options) and
# cuDNN SDPA. Everything goes to $OUT/d256-bwd/; a summary table is printed last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
java="$here/runtime/bin/java"
dir=${OUT:-$here}/d256-bwd
mkdir -p "$dir"
log="$dir/run.log"
: >"$log"
summary=()
t_start=$(date +%s)
note() { echo "$*" | tee -a "$log"; }

# ---------------------------------------------------------------- (1) verify matrix, forward + backward
pass=0; fail=0; failed=()
verify() {
  local out rc
  out=$(timeout 90 "$saw" verify "$@" 2>&1); rc=$?
  { echo "== verify $*"; echo "$out"; echo "rc=$rc"; } >>"$log"
  if [[ $rc == 0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$*"); fi
  printf '%-4s %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$*"
  [[ $rc == 0 ]] || echo "$out" | tail -6
}
note "== D=256 verify, fwd+bwd =="
verify causal                         --seq 2048 --heads 4               --head-dim 256 --dtype bf16 --block 64x64
verify causal                         --seq 2048 --heads 8 --kv-heads 2  --head-dim 256 --dtype fp16 --block 64x64 --sinks
verify 'window(384)'                  --seq 2048 --heads 4 --kv-heads 1  --head-dim 256 --dtype bf16 --block 64x32 --softcap 30
verify 'window(256)'                  --seq 1536 --heads 4 --kv-heads 2  --head-dim 256 --dtype fp16 --block 64x64 --sinks
verify 'docs(700,600,500,148)'        --seq 2048 --heads 2               --head-dim 256 --dtype fp16 --block 64x32 --sinks --softcap 50
verify 'and(causal,docs(300,500,170))' --seq 1000 --heads 6 --kv-heads 3 --head-dim 256 --dtype bf16 --block 64x64 --softcap 20
verify 'random(128,128,4,3)'          --seq 2048 --heads 4 --kv-heads 2  --head-dim 256 --dtype bf16 --block 64x64 --sinks
verify 'random(64,64,5,11)'           --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 1 --head-dim 256 --dtype fp16 --block 64x32
verify causal                         --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 2 --head-dim 256 --dtype bf16 --block 64x64 --sinks
verify 'or(sinks(16),window(128,128))' --seq 1000 --seq-kv 1500 --heads 2 --head-dim 256 --dtype fp16 --block 64x64 --sinks --softcap 30
note "== D <= 128 backward (shared template) =="
verify 'window(256)'                  --seq 1000 --heads 4 --kv-heads 2  --head-dim 128 --dtype bf16 --block 64x64 --sinks
verify 'and(causal,docs(300,500,170))' --seq 1000 --heads 2              --head-dim 64  --dtype fp16 --block 128x32 --softcap 20
summary+=("verify D=256 fwd+bwd|$pass passed, $fail failed${failed:+: ${failed[*]}}")
t_verify=$(date +%s)

# ---------------------------------------------------------------- (2) compute-sanitizer, small D=256 fwd+bwd
note "== compute-sanitizer =="
for tool in memcheck racecheck; do
  o=$(timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$java" -cp "$here/lib/*" saw.app.Main verify \
      'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x64 --sinks \
      --softcap 30 --pass fwd,bwd 2>&1); rc=$?
  { echo "== compute-sanitizer $tool"; echo "$o"; } >>"$log"
  line="rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  note "compute-sanitizer $tool: $line"
  summary+=("sanitizer $tool|$line")
done
t_sanitize=$(date +%s)

# ---------------------------------------------------------------- (3) timing: saw vs FlexAttention vs cuDNN
note "== timing, causal 8K B=4 H=16 D=256 bf16 =="
timeout 120 "$saw" bench preset:causal --seq 8192 --batch 4 --heads 16 --head-dim 256 --block 64x64,64x32 --pass fwd,bwd \
  --backend gpu --out "$dir/saw.jsonl" >>"$log" 2>&1
note "saw bench rc=$?"
while read -r line; do summary+=("saw ${line%%|*}|${line#*|}"); done < <(python3 -c "
import json
rows=[json.loads(l) for l in open('$dir/saw.jsonl')][1:]
for r in rows:
    if r.get('status')=='ok': print(f\"{r['pass']} {r['tile']}|{r['median_ms']:.3f} ms, {r['useful_tflops']:.0f} TF\")
    else: print(f\"{r.get('pass')} {r.get('tile')}|{r.get('status')}: {str(r.get('error', ''))[:100]}\")" 2>>"$log")
cat >"$dir/peers.py" <<'PY'
# the peer code that ran, saved beside its numbers: FlexAttention (torch.compile, default options) and cuDNN SDPA
import torch, torch.nn.functional as F
from torch.nn.attention import flex_attention as fx, sdpa_kernel, SDPBackend
B, H, S, D = 4, 16, 8192, 256
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
do = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
fwd_flops = 4 * B * H * D * S * (S + 1) / 2
def t(fn, reps=10):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]
def both(name, attn):
    try:
        with torch.no_grad():
            ms = t(lambda: attn(q, k, v))
        print(f"{name} fwd {ms:.3f} ms {fwd_flops / ms / 1e9:.0f} TF")
    except Exception as e:
        print(f"{name} fwd failed: {str(e).splitlines()[0][:200]}")
    try:
        out = attn(q, k, v)
        ms = t(lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True))
        print(f"{name} bwd {ms:.3f} ms {2.5 * fwd_flops / ms / 1e9:.0f} TF")
    except Exception as e:
        print(f"{name} bwd failed: {str(e).splitlines()[0][:200]}")
bm = fx.create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, S, S, device="cuda")
flex = torch.compile(fx.flex_attention, dynamic=False)
both("flexattention", lambda q, k, v: flex(q, k, v, block_mask=bm))
def cudnn(q, k, v):
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
both("sdpa-cudnn", cudnn)
PY
timeout 240 python3 "$dir/peers.py" >"$dir/peers.txt" 2>&1
note "peers rc=$?"
cat "$dir/peers.txt" >>"$log"
while read -r line; do summary+=("$line"); done < <(grep -E '^(flexattention|sdpa-cudnn) (fwd|bwd)' "$dir/peers.txt" \
  | sed -E 's/^([a-z-]+) (fwd|bwd) /\1 \2|/')
t_end=$(date +%s)

note ""
note "== summary ($((t_end - t_start)) s: verify $((t_verify - t_start)) s, sanitizer $((t_sanitize - t_verify)) s, timing $((t_end - t_sanitize)) s; logs in $dir) =="
for row in "${summary[@]}"; do printf '%-26s %s\n' "${row%%|*}" "${row#*|}" | tee -a "$log"; done
