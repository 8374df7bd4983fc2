#!/usr/bin/env bash
# Issue 13 on the H200, the head dim 256 Hopper forward with 128-row CTAs (attention_fwd_wgmma_d256.cu,
# fwd_wgmma{pp,ws}_*_d256_q128_kv64, selected by -Dsaw.kernel.fwd256=wgmma-q128, the default since this script's first H200 run). Under 120 s; run
# from the pack folder's parent, e.g. OUT=out .gpupack/d256-fwd128.sh:
# (0) SASS of the new kernels (HGMMA / HMMA / local-memory instruction counts, sm_90a image; expected 40 HGMMA,
#     0 HMMA, 0 local memory, as the 64-row kernels);
# (1) saw verify at D=256 (64x64 layouts; the new forward builds its own 128x64 lists from the mask) against the
#     fp64 reference with the new kernel on: causal, window + softcap + GQA 4:1, documents with padding rows and
#     Sq = 2000 (not a multiple of 128; a 128-row tile with no kv tile at all), random 64x64 blocks (the two 64-row
#     halves of a 128-row tile list different kv tiles), dilated (every tile PARTIAL), full, ragged Sq != Skv,
#     sinks, fp16; three cases forward + backward (the backward is unchanged), two with the ws variant (no turns);
# (2) compute-sanitizer memcheck, racecheck and synccheck on one small D=256 forward with the new kernel;
# (3) saw bench --pass fwd (3 warm-ups, median of 10): the current default (wgmma-pp, 64-row CTAs) and the new
#     kernel side by side at causal 8K B=4 H=16, causal 16K B=2 H=16, sliding window 1024 and 8 documents at 8K
#     B=4 H=16, all D=256 bf16 (plus the ws variant at causal 8K); cuDNN SDPA causal forward at both causal shapes
#     (timed with the t() of bench/gpu/d256-wgmma.sh's peer code). Rows run in that order of importance (causal 8K,
#     cuDNN, then the rest); one that would start past 105 s is skipped with a note.
# A family whose run times out (a kernel that hangs) is skipped from then on. Logs in $OUT/d256f/; summary last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
java="$here/runtime/bin/java"
dir=${OUT:-$here}/d256f
mkdir -p "$dir"
log="$dir/run.log"
: >"$log"
summary=()
t_start=$(date +%s)
note() { echo "$*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>"$log" 2>&1 || true
declare -A opts=(
  [pp64]="-Dsaw.kernel.fwd256=wgmma -Dsaw.kernel.fwd=wgmma-pp"
  [pp128]="-Dsaw.kernel.fwd256=wgmma-q128 -Dsaw.kernel.fwd=wgmma-pp"
  [ws128]="-Dsaw.kernel.fwd256=wgmma-q128 -Dsaw.kernel.fwd=wgmma-ws"
)

# ---------------------------------------------------------------- (0) SASS of the new kernels (sm_90a image)
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  "$here"/lib/saw-engine-*.jar >"$dir/saw.fatbin" 2>>"$log"
# only these functions, as bwd-frontier.sh does (d256-wgmma.sh's full dump piped through awk left its table empty on
# the H200: docs/results/h200-2026-12-01c/callA/d256/sass.txt); the 64-row pp kernel beside them for comparison
fns=fwd_wgmmapp_bf16_d256_q128_kv64,fwd_wgmmaws_bf16_d256_q128_kv64,fwd_wgmmapp_fp16_d256_q128_kv64,fwd_wgmmapp_bf16_d256_q64_kv64
timeout 30 cuobjdump --dump-sass --function "$fns" "$dir/saw.fatbin" >"$dir/sass-dump.txt" 2>>"$log" || note "cuobjdump failed or timed out"
awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3}
    fn ~ /^fwd_wgmma(ws|pp)_.*_d256_/ && arch=="sm_90a" {
      if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /HMMA/) hm[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; seen[fn]=1 }
    END { for (f in seen) printf "%s|HGMMA %d, HMMA %d, local memory %d\n", f, hg[f], hm[f], lm[f] }' "$dir/sass-dump.txt" \
  | sort >"$dir/sass.txt"
if [[ -s $dir/sass.txt ]]; then
  rm -f "$dir/sass-dump.txt"
else
  summary+=("sass|no sm_90a function found (cuobjdump's output kept in sass-dump.txt)")
fi
while read -r line; do summary+=("sass ${line%%|*}|${line#*|}"); done <"$dir/sass.txt"
rm -f "$dir/saw.fatbin"

# ---------------------------------------------------------------- (1) verify with the new kernel on
declare -A pass=() fail=() hung=()
failed=()
verify() {  # VARIANT verify-args...
  local v=$1 out rc; shift
  if [[ -n ${hung[$v]:-} ]]; then fail[$v]=$((${fail[$v]:-0} + 1)); failed+=("[$v] skipped (hung before) $*"); return; fi
  out=$(SAW_JAVA_OPTS="${opts[$v]}" timeout -k 5 30 "$saw" verify "$@" --head-dim 256 --block 64x64 2>&1); rc=$?
  [[ $rc == 124 || $rc == 137 ]] && hung[$v]=1
  { echo "== verify [$v: ${opts[$v]}] $*"; echo "$out"; echo "rc=$rc"; } >>"$log"
  if [[ $rc == 0 ]]; then pass[$v]=$((${pass[$v]:-0} + 1)); else fail[$v]=$((${fail[$v]:-0} + 1)); failed+=("[$v] $*"); fi
  printf '%-4s %-6s %s  %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$v" "$*" \
    "$(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
  [[ $rc == 124 || $rc == 137 ]] && echo "     timed out after 30 s: does the $v kernel hang? its remaining runs are skipped"
  [[ $rc == 0 ]] || echo "$out" | tail -8
}
note "== D=256 verify, forward with 128-row CTAs (-Dsaw.kernel.fwd256=wgmma-q128) =="
verify pp128 causal                          --seq 2048 --heads 4               --dtype bf16 --pass fwd,bwd
verify pp128 causal                          --seq 2048 --heads 8 --kv-heads 2  --dtype fp16 --sinks --pass fwd
verify pp128 'window(256)'                   --seq 1536 --heads 4 --kv-heads 1  --dtype bf16 --softcap 30 --pass fwd
verify pp128 'docs(700,600,500,100)'         --seq 2000 --heads 2               --dtype fp16 --sinks --softcap 50 --pass fwd,bwd
verify pp128 'random(64,64,5,11)'            --seq 2048 --heads 4 --kv-heads 1  --dtype bf16 --sinks --pass fwd
verify pp128 'dilated(3)'                    --seq 1000 --heads 2               --dtype bf16 --softcap 20 --pass fwd
verify pp128 full                            --seq 2048 --heads 2               --dtype fp16 --pass fwd
verify pp128 causal                          --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 2 --dtype bf16 --sinks --pass fwd,bwd
verify pp128 'or(sinks(16),window(128,128))' --seq 1000 --seq-kv 1500 --heads 2 --dtype fp16 --softcap 30 --pass fwd
verify ws128 'and(causal,docs(300,500,170))' --seq 1000 --heads 6 --kv-heads 3  --dtype bf16 --softcap 20 --pass fwd
verify ws128 'random(64,64,5,11)'            --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 1 --dtype fp16 --sinks --pass fwd
for v in pp128 ws128; do summary+=("verify $v|${pass[$v]:-0} passed, ${fail[$v]:-0} failed"); done
for f in "${failed[@]}"; do summary+=("  failed|$f"); done
t_verify=$(date +%s)

# ---------------------------------------------------------------- (2) compute-sanitizer, small D=256 forward
note "== compute-sanitizer (pp128) =="
for tool in memcheck racecheck synccheck; do
  [[ -n ${hung[pp128]:-} ]] && { summary+=("sanitizer $tool|skipped: pp128 hung in verify"); continue; }
  # shellcheck disable=SC2086
  o=$(timeout -k 5 40 compute-sanitizer --tool "$tool" --error-exitcode 9 "$java" ${opts[pp128]} -cp "$here/lib/*" \
      saw.app.Main verify 'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 \
      --block 64x64 --sinks --softcap 30 --pass fwd 2>&1); rc=$?
  { echo "== compute-sanitizer $tool"; echo "$o"; } >>"$log"
  line="rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1 | sed 's/=* *//')"
  note "compute-sanitizer $tool: $line"
  summary+=("sanitizer $tool|$line")
done
t_sanitize=$(date +%s)

# ---------------------------------------------------------------- (3) timing: 64-row vs 128-row CTAs, cuDNN
note "== timing, D=256 bf16 forward =="
spec() {  # NAME S B MASK_JSON
  cat >"$dir/spec-$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": 16,
  "block": { "q": 64, "kv": 64 }, "mask": $4 }
JSON
}
causal='{ "causal": { "offset": 0 } }'
spec causal-8k 8192 4 "$causal"
spec causal-16k 16384 2 "$causal"
spec window-1024-8k 8192 4 '{ "sliding_window": { "left": 1024, "right": 0 } }'
# 8 documents at 5/10/15/10/20/10/20/10 % of 8192 (flex-compare.sh's docs-8), causal inside each
spec docs-8-8k 8192 4 "{ \"and\": [ $causal, { \"documents\": { \"lengths\": [409, 819, 1228, 819, 1638, 819, 1638, 822] } } ] }"
# the rows in the order they matter; one that would start past 105 s is skipped, so the script ends inside 120 s
budget_left() { (( $(date +%s) - t_start < 105 )); }
bench() {  # VARIANT SHAPE
  [[ -n ${hung[$1]:-} ]] && { note "saw bench $1 $2 skipped: $1 hung in verify"; return; }
  budget_left || { note "saw bench $1 $2 skipped: past the time budget"; return; }
  SAW_JAVA_OPTS="${opts[$1]}" timeout -k 5 30 "$saw" bench "$dir/spec-$2.json" --head-dim 256 --dtype bf16 --block 64x64 \
    --pass fwd --warmup 3 --reps 10 --backend gpu --out "$dir/saw-$1-$2.jsonl" >>"$log" 2>&1
  note "saw bench $1 $2 rc=$?"
}
bench pp64 causal-8k
bench pp128 causal-8k
# cuDNN SDPA causal forward, timed by the t() of d256-wgmma.sh's peer code (3 warm-ups, median of 10 event-timed runs)
if [[ -f $here/d256-wgmma.sh ]] && budget_left; then
  {
    echo "import torch, torch.nn.functional as F"
    echo "from torch.nn.attention import sdpa_kernel, SDPBackend"
    sed -n '/^def t(fn, reps=10):$/,/^    ts.sort(); return ts\[len(ts) \/\/ 2\]$/p' "$here/d256-wgmma.sh"
    cat <<'PY'
for name, B, S in (("causal-8k", 4, 8192), ("causal-16k", 2, 16384)):
    q, k, v = (torch.randn(B, 16, S, 256, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    flops = 4 * B * 16 * 256 * S * (S + 1) / 2
    try:
        with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ms = t(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        print(f"sdpa-cudnn {name} {ms:.3f} ms {flops / ms / 1e9:.0f} TF")
    except Exception as e:
        print(f"sdpa-cudnn {name} failed: {str(e).splitlines()[0][:200]}")
    del q, k, v
PY
  } >"$dir/cudnn.py"
  timeout -k 5 30 python3 "$dir/cudnn.py" >"$dir/cudnn.txt" 2>&1
  note "cudnn rc=$?"
  cat "$dir/cudnn.txt" >>"$log"
else
  note "cudnn: skipped (no d256-wgmma.sh beside this script, or past the time budget)"
fi
for shape in causal-16k window-1024-8k docs-8-8k; do
  bench pp64 "$shape"
  bench pp128 "$shape"
done
bench ws128 causal-8k
while read -r line; do summary+=("$line"); done < <(python3 - "$dir" 2>>"$log" <<'PY'
import json, re, sys, pathlib
d = pathlib.Path(sys.argv[1])
cudnn = {}
p = d / "cudnn.txt"
for l in p.open() if p.exists() else []:
    m = re.match(r"^sdpa-cudnn (\S+) ([0-9.]+) ms ([0-9]+) TF", l)
    if m:
        cudnn[m[1]] = (float(m[2]), int(m[3]))
def row(variant, shape):
    f = d / f"saw-{variant}-{shape}.jsonl"
    if not f.exists():
        return None, "no results (see run.log)"
    for r in [json.loads(l) for l in f.open()][1:]:
        if r.get("status") == "ok":
            return r, f"{r['median_ms']:.3f} ms {r['useful_tflops']:.0f} TF  {r.get('kernel')}"
        return None, f"{r.get('status')}: {str(r.get('error', ''))[:100]}"
    return None, "no rows"
for shape in ("causal-8k", "causal-16k", "window-1024-8k", "docs-8-8k"):
    old, old_text = row("pp64", shape)
    new, new_text = row("pp128", shape)
    print(f"{shape} pp64|{old_text}")
    print(f"{shape} pp128|{new_text}")
    if old and new:
        print(f"{shape} pp128 / pp64|{old['median_ms'] / new['median_ms']:.2f}x")
    if shape in cudnn:
        print(f"{shape} sdpa-cudnn|{cudnn[shape][0]:.3f} ms {cudnn[shape][1]} TF")
_, ws_text = row("ws128", "causal-8k")
print(f"causal-8k ws128|{ws_text}")
PY
)
t_end=$(date +%s)

note ""
note "== summary ($((t_end - t_start)) s: verify $((t_verify - t_start)) s, sanitizer $((t_sanitize - t_verify)) s, timing $((t_end - t_sanitize)) s; logs in $dir) =="
for row in "${summary[@]}"; do printf '%-34s %s\n' "${row%%|*}" "${row#*|}" | tee -a "$log"; done
