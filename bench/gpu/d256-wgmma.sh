#!/usr/bin/env bash
# Issue 13 on the H200, the head dim 256 Hopper forward (attention_fwd_wgmma_d256.cu; about 90 s; run from the
# repository root or the pack folder's parent, e.g. OUT=out .gpupack/d256-wgmma.sh):
# (1) saw verify forward + backward at D=256 against the fp64 reference with the forward on wgmma-pp (the default:
#     a producer and two consumer warpgroups taking the kv tiles in turn) over causal, window, documents with padding
#     rows, and(causal, docs), random blocks, dilated (every tile PARTIAL), full, Sq != Skv with ragged ends, GQA
#     4:1 / 2:1, softcap, sinks, bf16 and fp16; three such cases, forward only, with wgmma-ws (one consumer warpgroup);
# (2) compute-sanitizer memcheck (pp, ws) and racecheck (pp) on one small D=256 forward;
# (3) causal S=8192 B=4 H=16 D=256 bf16, one run each: the mma.sync forward (64x64, 64x32: the old family), the
#     wgmma-ws and wgmma-pp forwards (64x64), pp's forward + backward (the backward is still mma.sync), against
#     FlexAttention (torch.compile, default options) and cuDNN SDPA, forward and backward.
# Every run sets -Dsaw.kernel.fwd256=wgmma (the D=256 Hopper forward was off by default until this script verified
# it) and -Dsaw.kernel.fwd=FAMILY. Everything goes to $OUT/d256/; a summary table is printed last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
java="$here/runtime/bin/java"
dir=${OUT:-$here}/d256
mkdir -p "$dir"
log="$dir/run.log"
: >"$log"
summary=()
t_start=$(date +%s)
note() { echo "$*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>"$log" 2>&1 || true

# ---------------------------------------------------------------- (0) SASS of the new kernels (sm_90a image)
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  "$here"/lib/saw-engine-*.jar >"$dir/saw.fatbin" 2>>"$log"
timeout 20 cuobjdump --dump-sass "$dir/saw.fatbin" 2>>"$log" | awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3}
    fn ~ /^fwd_wgmma(ws|pp)_.*_d256_/ && arch=="sm_90a" {
      if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /HMMA/) hm[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; seen[fn]=1 }
    END { for (f in seen) printf "%s|HGMMA %d, HMMA %d, local memory %d\n", f, hg[f], hm[f], lm[f] }' | sort >"$dir/sass.txt"
while read -r line; do summary+=("sass ${line%%_q64_kv64|*}|${line#*|}"); done <"$dir/sass.txt"
rm -f "$dir/saw.fatbin"

# ---------------------------------------------------------------- (1) verify, forward + backward
declare -A pass=() fail=() hung=()
failed=()
# a family whose run times out (a kernel that hangs) is skipped from then on, so the script stays inside its budget
verify() {  # FAMILY verify-args...
  local fam=$1 out rc; shift
  if [[ -n ${hung[$fam]:-} ]]; then fail[$fam]=$((${fail[$fam]:-0} + 1)); failed+=("[$fam] skipped (hung before) $*"); return; fi
  out=$(SAW_JAVA_OPTS="-Dsaw.kernel.fwd256=wgmma -Dsaw.kernel.fwd=$fam" timeout -k 5 30 "$saw" verify "$@" --head-dim 256 --block 64x64 2>&1); rc=$?
  [[ $rc == 124 || $rc == 137 ]] && hung[$fam]=1
  { echo "== verify [$fam] $*"; echo "$out"; echo "rc=$rc"; } >>"$log"
  if [[ $rc == 0 ]]; then pass[$fam]=$((${pass[$fam]:-0} + 1)); else fail[$fam]=$((${fail[$fam]:-0} + 1)); failed+=("[$fam] $*"); fi
  printf '%-4s %-9s %s  %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$fam" "$*" \
    "$(echo "$out" | awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}')"
  [[ $rc == 124 || $rc == 137 ]] && echo "     timed out after 30 s: a kernel of $fam hangs? its remaining runs are skipped"
  [[ $rc == 0 ]] || echo "$out" | tail -8
}
note "== D=256 verify, wgmma forward + mma.sync backward =="
verify wgmma-pp causal                          --seq 2048 --heads 4               --dtype bf16
verify wgmma-pp causal                          --seq 2048 --heads 8 --kv-heads 2  --dtype fp16 --sinks
verify wgmma-pp 'window(256)'                   --seq 1536 --heads 4 --kv-heads 2  --dtype fp16 --sinks
verify wgmma-pp 'docs(700,600,500,148)'         --seq 2048 --heads 2               --dtype fp16 --sinks --softcap 50
verify wgmma-pp 'and(causal,docs(300,500,170))' --seq 1000 --heads 6 --kv-heads 3  --dtype bf16 --softcap 20
verify wgmma-pp 'random(128,128,4,3)'           --seq 2048 --heads 4 --kv-heads 1  --dtype bf16 --sinks
verify wgmma-pp causal                          --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 2 --dtype bf16 --sinks
verify wgmma-pp 'or(sinks(16),window(128,128))' --seq 1000 --seq-kv 1500 --heads 2 --dtype fp16 --sinks --softcap 30
verify wgmma-pp 'dilated(3)'                    --seq 1000 --heads 2               --dtype bf16 --softcap 20
verify wgmma-pp full                            --seq 2048 --heads 2               --dtype fp16
verify wgmma-ws causal                          --seq 2048 --heads 8 --kv-heads 2  --dtype fp16 --sinks --pass fwd
verify wgmma-ws 'docs(700,600,500,148)'         --seq 2048 --heads 2               --dtype bf16 --softcap 50 --pass fwd
verify wgmma-ws 'random(128,128,4,3)'           --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 1 --dtype fp16 --sinks --pass fwd
for fam in wgmma-pp wgmma-ws; do summary+=("verify $fam|${pass[$fam]:-0} passed, ${fail[$fam]:-0} failed"); done
for f in "${failed[@]}"; do summary+=("  failed|$f"); done
t_verify=$(date +%s)

# ---------------------------------------------------------------- (2) compute-sanitizer, small D=256 forward
note "== compute-sanitizer =="
for vt in wgmma-pp:memcheck wgmma-pp:racecheck wgmma-ws:memcheck; do
  [[ -n ${hung[${vt%%:*}]:-} ]] && { summary+=("sanitizer $vt|skipped: the family hung in verify"); continue; }
  o=$(timeout -k 5 40 compute-sanitizer --tool "${vt#*:}" --error-exitcode 9 "$java" -Dsaw.kernel.fwd256=wgmma -Dsaw.kernel.fwd="${vt%%:*}" -cp "$here/lib/*" \
      saw.app.Main verify 'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 \
      --block 64x64 --sinks --softcap 30 --pass fwd 2>&1); rc=$?
  { echo "== compute-sanitizer $vt"; echo "$o"; } >>"$log"
  line="rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1 | sed 's/=* *//')"
  note "compute-sanitizer $vt: $line"
  summary+=("sanitizer $vt|$line")
done
t_sanitize=$(date +%s)

# ---------------------------------------------------------------- (3) timing: old vs new vs FlexAttention vs cuDNN
note "== timing, causal 8K B=4 H=16 D=256 bf16 =="
bench() {  # FAMILY NAME blocks passes
  [[ -n ${hung[$1]:-} ]] && { note "saw bench $1 skipped: the family hung in verify"; return; }
  SAW_JAVA_OPTS="-Dsaw.kernel.fwd256=wgmma -Dsaw.kernel.fwd=$1" timeout -k 5 30 "$saw" bench preset:causal --seq 8192 --batch 4 --heads 16 --head-dim 256 \
    --dtype bf16 --block "$3" --pass "$4" --warmup 3 --reps 10 --backend gpu --out "$dir/saw-$2.jsonl" >>"$log" 2>&1
  note "saw bench $1 rc=$?"
}
bench mma old 64x64,64x32 fwd
bench wgmma-ws ws 64x64 fwd
bench wgmma-pp pp 64x64 fwd,bwd
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
timeout -k 5 75 python3 "$dir/peers.py" >"$dir/peers.txt" 2>&1
note "peers rc=$?"
cat "$dir/peers.txt" >>"$log"
# saw rows (kernel that ran, median, useful TFLOP/s) and fwd+bwd = 3.5 x the forward's useful FLOP over the two medians
while read -r line; do summary+=("$line"); done < <(python3 - "$dir" 2>>"$log" <<'PY'
import json, re, sys, pathlib
d = pathlib.Path(sys.argv[1])
ms = {}
for name in ("old", "ws", "pp"):
    f = d / f"saw-{name}.jsonl"
    if not f.exists():
        print(f"saw {name}|no results (see run.log)"); continue
    for r in [json.loads(l) for l in f.open()][1:]:
        key = f"saw {r.get('pass')} {r.get('tile')} {name}"
        if r.get("status") == "ok":
            print(f"{key}|{r['median_ms']:.3f} ms {r['useful_tflops']:.0f} TF  {r.get('kernel')}")
            ms[(name, r["pass"])] = (r["median_ms"], r["useful_flops"])
        else:
            print(f"{key}|{r.get('status')}: {str(r.get('error', ''))[:100]}")
peers = {}
for l in (d / "peers.txt").open() if (d / "peers.txt").exists() else []:
    m = re.match(r"^(flexattention|sdpa-cudnn) (fwd|bwd) ([0-9.]+) ms ([0-9]+) TF", l)
    if m:
        print(f"{m[1]} {m[2]}|{m[3]} ms {m[4]} TF")
        peers[(m[1], m[2])] = float(m[3])
if ("pp", "fwd") in ms and ("pp", "bwd") in ms:
    (f, useful), (b, _) = ms[("pp", "fwd")], ms[("pp", "bwd")]
    print(f"saw fwd+bwd pp|{f + b:.3f} ms {3.5 * useful / ((f + b) / 1e3) / 1e12:.0f} TF")
fwd_flops = 4 * 4 * 16 * 256 * 8192 * 8193 / 2
for p in ("flexattention", "sdpa-cudnn"):
    if (p, "fwd") in peers and (p, "bwd") in peers:
        t = peers[(p, "fwd")] + peers[(p, "bwd")]
        print(f"{p} fwd+bwd|{t:.3f} ms {3.5 * fwd_flops / (t / 1e3) / 1e12:.0f} TF")
PY
)
t_end=$(date +%s)

note ""
note "== summary ($((t_end - t_start)) s: verify $((t_verify - t_start)) s, sanitizer $((t_sanitize - t_verify)) s, timing $((t_end - t_sanitize)) s; logs in $dir) =="
for row in "${summary[@]}"; do printf '%-28s %s\n' "${row%%|*}" "${row#*|}" | tee -a "$log"; done
