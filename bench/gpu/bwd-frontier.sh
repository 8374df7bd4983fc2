#!/usr/bin/env bash
# Issue 12 on the H200: the default Hopper backward, wgmma-ws (warp-specialised, dQ by one bulk reduce-add per step
# from shared memory, folded in from the trial family wgmma-dq), against cuDNN, about 60 s (run from the pack folder,
# e.g. OUT=out .gpupack/bwd-frontier.sh). Until the lock-step Hopper backward with dQ atomics was retired this script
# also timed it beside wgmma-ws (docs/kernel-notes.md, "Retired Hopper families"):
#   (0) SASS of bwd_wgmmaws_* (bf16, D 64 and 128): HGMMA, bulk reduce-adds (UBLK*), global reductions/atomics
#       (none expected), local memory
#   (1) saw verify, forward + backward, of wgmma-ws: causal, window, documents, random ~6% (2 blocks a row, 128- and
#       64-blocks: FULL and PARTIAL tiles), GQA, softcap, sinks, fp16,
#       ragged ends (Sq not a multiple of 64: the bulk add's row clipping), Sq != Skv; D 64 and 128
#   (2) compute-sanitizer memcheck, racecheck and synccheck of wgmma-ws on one small case (GQA 2:1, documents with
#       padding rows, Sq = 1250, kv column 0 of 20 steps per head, which wraps the 3-stage ring)
#   (1) and (2) only check results, so they run side by side, four at a time
#   (3) backward timing of wgmma-ws per row, cuDNN SDPA beside the dense rows:
#       causal 8K B=4 H=16, causal 16K B=4 H=16, GQA 32K B=1 H=32 Hkv=8, 64 packed documents in 32K (B=1 H=16);
#       D=128 bf16, 128x128 tiles, median of 10 after 3 warm-ups, useful TFLOP/s (2.5x the forward's FLOPs).
# Logs and results in $OUT/bwd/; a summary table is printed last. BWF_PARTS="verify sanitize timing" picks parts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
java="$here/runtime/bin/java"
dir=${OUT:-$here}/bwd
mkdir -p "$dir/specs"
log="$dir/run.log"
: >"$log"
parts=" ${BWF_PARTS:-verify sanitize timing} "
summary=()
t_start=$(date +%s)
note() { echo "$*" | tee -a "$log"; }
now() { date +%s; }

# ---------------------------------------------------------------- (0) SASS of the Hopper backward family
# per sm_90a kernel: HGMMA, bulk copies (UBLK*: the reduce-add), global reductions/atomics (RED/ATOM), local memory
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  "$here"/lib/saw-engine-*.jar >"$dir/saw.fatbin" 2>>"$log"
fns=bwd_wgmmaws_bf16_d128_q128_kv128,bwd_wgmmaws_bf16_d64_q128_kv128
cuobjdump --dump-sass --function "$fns" "$dir/saw.fatbin" >"$dir/sass.txt" 2>&1 && grep -q HGMMA "$dir/sass.txt" \
  || cuobjdump --dump-sass "$dir/saw.fatbin" >"$dir/sass.txt" 2>&1 || note "cuobjdump failed"
awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3} fn ~ /^bwd_wgmmaws_(bf16|fp16)_d(64|128)_/ && arch=="sm_90a" {
       if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /UBLK/) br[fn]++; if ($0 ~ /[^A-Z](RED|ATOM|REDG|ATOMG)[.E ]/) at[fn]++;
       if ($0 ~ /LDL|STL/) lm[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-42s HGMMA %3d  UBLK* %2d  RED/ATOM %3d  local %3d\n", f, hg[f], br[f], at[f], lm[f] }' \
  "$dir/sass.txt" | sort >"$dir/sass-summary.txt"
rm -f "$dir/saw.fatbin" "$dir/sass.txt"
cat "$dir/sass-summary.txt" >>"$log"
summary+=("sass bf16 d128 ws|$(grep 'bwd_wgmmaws_bf16_d128_q128_kv128 ' "$dir/sass-summary.txt" | cut -c44-)")
summary+=("sass bf16 d64 ws|$(grep 'bwd_wgmmaws_bf16_d64_q128_kv128 ' "$dir/sass-summary.txt" | cut -c44-)")
t_sass=$(now)

# ---------------------------------------------------------------- (1) + (2) verify and compute-sanitizer of wgmma-ws
# Correctness only, so the cases run side by side (at most 4 JVMs at a time, the sanitizers first: they take longest);
# each writes its own log, and the results are printed in order once all are done.
cases=(
  "causal --seq 1000 --heads 4 --head-dim 128 --dtype bf16"
  "causal --seq 4096 --heads 4 --kv-heads 1 --head-dim 128 --dtype fp16"
  "window(256) --seq 4096 --heads 4 --head-dim 64 --dtype bf16"
  "docs(700,1500,1200,500) --seq 3900 --heads 2 --head-dim 128 --dtype bf16 --softcap 30"
  "and(causal,docs(3000,2000,1000,1500)) --seq 7500 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16"
  "random(128,128,2,7) --seq 4096 --heads 4 --kv-heads 1 --head-dim 128 --dtype fp16"
  "random(64,64,2,3) --seq 2000 --heads 4 --kv-heads 2 --head-dim 64 --dtype bf16 --softcap 20"
  "causal --seq 2000 --heads 4 --kv-heads 2 --head-dim 128 --dtype bf16 --sinks"
  "or(sinks(16),and(causal,not(window(300)))) --seq 1000 --seq-kv 1500 --heads 2 --head-dim 64 --dtype bf16 --sinks"
  "causal(3096) --seq 1000 --seq-kv 4096 --heads 2 --head-dim 128 --dtype fp16"
  "window(256) --seq 1000 --seq-kv 700 --heads 2 --head-dim 64 --dtype fp16 --softcap 10"
  "full --seq 2100 --heads 2 --head-dim 128 --dtype bf16")
tools=(memcheck racecheck synccheck)
throttle() { while [[ $(jobs -rp | wc -l) -ge 4 ]]; do sleep 0.2; done; }
if [[ $parts == *" sanitize "* ]]; then
  note "== compute-sanitizer, wgmma-ws (documents ending at 1200 of 1250 rows, GQA 2:1, 20 steps per head in kv column 0) =="
  for tool in "${tools[@]}"; do
    throttle
    ( timeout 100 compute-sanitizer --tool "$tool" --error-exitcode 9 "$java" -Dsaw.kernel.bwd=wgmma-ws -cp "$here/lib/*" \
        saw.app.Main verify 'and(causal,docs(700,300,200))' --seq 1250 --heads 2 --kv-heads 1 --head-dim 128 --dtype bf16 \
        --block 128x128 --pass fwd,bwd >"$dir/sanitize-$tool.log" 2>&1; echo "rc=$?" >>"$dir/sanitize-$tool.log" ) &
  done
fi
if [[ $parts == *" verify "* ]]; then
  note "== verify wgmma-ws, fwd+bwd, 128x128 =="
  for n in "${!cases[@]}"; do
    throttle
    read -ra args <<<"${cases[$n]}"
    ( SAW_JAVA_OPTS=-Dsaw.kernel.bwd=wgmma-ws timeout 90 "$saw" verify "${args[@]}" --block 128x128 --pass fwd,bwd \
        >"$dir/verify-$n.log" 2>&1; echo "rc=$?" >>"$dir/verify-$n.log" ) &
  done
fi
wait
if [[ $parts == *" verify "* ]]; then
  # dSink is not an output of the backward kernels (sink_grad makes it from LSE and Dsum), and on the --sinks case
  # with Sq=1000 Skv=1500 D=64 bf16 its sum cancels ~36x, so O's bf16 error alone moves it ~1e-2 (docs/kernel-notes.md,
  # "dQ by bulk reduce-add"): a case that fails on dSink alone is counted apart, not as a pass
  pass=0; fail=0; failed=(); dsink=0; dsinkOnly=()
  for n in "${!cases[@]}"; do
    f="$dir/verify-$n.log"; rc=$(tail -1 "$f")
    { echo "== verify wgmma-ws ${cases[$n]}"; cat "$f"; } >>"$log"
    if [[ $rc == rc=0 ]]; then pass=$((pass + 1))
    elif [[ $rc == rc=3 && $(grep '^FAIL:' "$f") == "FAIL: dSink" ]]; then dsink=$((dsink + 1)); dsinkOnly+=("[${cases[$n]}]")
    else fail=$((fail + 1)); failed+=("[${cases[$n]}]"); fi
    printf '%-4s %s  %s\n' "$([[ $rc == rc=0 ]] && echo ok || echo FAIL)" "${cases[$n]}" \
      "$(awk '$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}' "$f")"
    [[ $rc == rc=0 ]] || tail -8 "$f"
  done
  summary+=("verify wgmma-ws fwd+bwd|$pass passed, $fail failed${failed:+: ${failed[*]}}")
  [[ $dsink == 0 ]] || summary+=("verify dSink only|$dsink failed on dSink alone (O, LSE, dQ, dK, dV within tolerance): ${dsinkOnly[*]}")
fi
if [[ $parts == *" sanitize "* ]]; then
  for tool in "${tools[@]}"; do
    f="$dir/sanitize-$tool.log"
    { echo "== compute-sanitizer $tool"; cat "$f"; } >>"$log"
    line="$(tail -1 "$f") $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) $(grep -E '^(PASS|FAIL)' "$f" | tail -1)"
    note "compute-sanitizer $tool: $line"
    summary+=("sanitizer $tool|$line")
  done
fi
t_checks=$(now)

# ---------------------------------------------------------------- (3) timing: wgmma-ws (+ cuDNN)
spec() { # NAME S B H MASK_JSON
  cat >"$dir/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 128, "kv": 128 }, "mask": $5 }
JSON
}
CAUSAL='{ "causal": { "offset": 0 } }'
# 64 packed documents at 32K as flex-compare.sh makes them: lengths cycle through 1, 2, 3 and 4 units
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
spec causal-8k 8192 4 16 "$CAUSAL"
spec causal-16k 16384 4 16 "$CAUSAL"
spec gqa-32k 32768 1 32 "$CAUSAL"
spec docs64-32k 32768 1 16 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$L$((32768 - SUM))] } } ] }"
rows=("causal-8k|--batch 4 --heads 16 --kv-heads 16" "causal-16k|--batch 4 --heads 16 --kv-heads 16"
      "gqa-32k|--batch 1 --heads 32 --kv-heads 8" "docs64-32k|--batch 1 --heads 16 --kv-heads 16")
timed() { # NAME FAMILY ARGS...: one saw bench of the backward; prints "median_ms TFLOP/s" or the failure
  local name=$1 fam=$2; shift 2
  local res="$dir/saw-$name-$fam.jsonl"
  SAW_JAVA_OPTS=-Dsaw.kernel.bwd=$fam timeout 60 "$saw" bench "$dir/specs/$name.json" "$@" --head-dim 128 --dtype bf16 \
    --block 128x128 --pass bwd --backend gpu --reps 10 --warmup 3 --out "$res" >>"$log" 2>&1
  local rc=$?
  python3 - "$res" "$rc" <<'PY' 2>>"$log"
import json, sys
path, rc = sys.argv[1], sys.argv[2]
try:
    rows = [json.loads(l) for l in open(path)][1:]
except OSError:
    rows = []
ok = [r for r in rows if r.get("status") == "ok" and r.get("pass") == "bwd"]
if ok:
    r = ok[0]
    print(f"{r['median_ms']:.3f} {r['useful_tflops']:.1f} {r.get('kernel', '')}")
else:
    err = next((str(r.get("error", r.get("status"))) for r in rows), f"no rows, rc={rc}")
    print(f"- - failed:{err[:120].replace(' ', '_')}")
PY
}
if [[ $parts == *" timing "* ]]; then
  note "== backward timing, D=128 bf16 128x128, median of 10 (the default wgmma-ws) =="
  for row in "${rows[@]}"; do
    name=${row%%|*}; read -ra extra <<<"${row#*|}"
    read -r ms_new tf_new k_new < <(timed "$name" wgmma-ws "${extra[@]}")
    note "$name: wgmma-ws $ms_new ms $tf_new TF ($k_new)"
    summary+=("bwd $name|ws $tf_new TF ($ms_new ms)")
  done
  cat >"$dir/cudnn.py" <<'PY'
# the peer that ran, saved beside its numbers: cuDNN SDPA backward on the dense causal rows, median of 10 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")  # filled before each start event, as do_bench does
for name, B, H, HKV, S in (("causal-8k", 4, 16, 16, 8192), ("causal-16k", 4, 16, 16, 16384), ("gqa-32k", 1, 32, 8, 32768)):
    try:
        g = torch.Generator(device="cuda").manual_seed(0)
        q = torch.randn(B, H, S, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(B, HKV, S, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(B, HKV, S, 128, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        do = torch.randn(B, H, S, 128, generator=g, device="cuda", dtype=torch.bfloat16)
        if H != HKV:  # K/V repeated to H heads as leaves, so that only cuDNN's backward is timed (dK/dV per q head)
            k = k.detach().repeat_interleave(H // HKV, 1).requires_grad_()
            v = v.detach().repeat_interleave(H // HKV, 1).requires_grad_()
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            ts = []
            for i in range(13):
                q.grad = k.grad = v.grad = None
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                flush.zero_(); a.record(); out.backward(do, retain_graph=True); b.record(); b.synchronize()
                if i >= 3: ts.append(a.elapsed_time(b))
        ts.sort(); ms = (ts[4] + ts[5]) / 2
        flops = 2.5 * 4 * B * H * 128 * S * (S + 1) / 2
        print(f"{name} {ms:.3f} {flops / ms / 1e9:.1f}")
        del q, k, v, do, out
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"{name} - failed:{str(e).splitlines()[0][:120]}")
    sys.stdout.flush()
PY
  timeout 90 python3 "$dir/cudnn.py" >"$dir/cudnn.txt" 2>>"$log"
  note "cudnn rc=$?"
  cat "$dir/cudnn.txt" >>"$log"
  while read -r name ms tf; do summary+=("cudnn $name|$tf TF ($ms ms)"); done <"$dir/cudnn.txt"
fi
t_end=$(now)

note ""
note "== summary ($((t_end - t_start)) s: SASS $((t_sass - t_start)) s, verify + sanitizer $((t_checks - t_sass)) s, timing $((t_end - t_checks)) s; logs in $dir) =="
for row in "${summary[@]}"; do printf '%-28s %s\n' "${row%%|*}" "${row#*|}" | tee -a "$log"; done
