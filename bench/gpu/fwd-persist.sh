#!/usr/bin/env bash
# Issue 12 on the H200, the persistent Hopper forward (wgmma-persist: grid = SMs x CTAs that fit, each CTA walks
# work items of the launch order, the producer loading the next item's Q and first K/V during the current item's
# last tiles and epilogue) against the pingpong forward it would replace (wgmma-pp, the default); about 100 s (run
# from the repository root, e.g. OUT=out .gpupack/fwd-persist.sh):
#   (0) SASS of fwd_wgmmapersist_* and fwd_wgmmapp_*: HGMMA, HMMA, local memory
#   (1) saw verify, forward only, of wgmma-persist against the fp64 reference: causal, docs-64 in 32K, docs-8,
#       window 1024, random blocks, GQA, softcap, sinks, fp16, D 64 and 128, Sq != Skv with ragged ends, padding
#       rows (empty work items); the large cases (1024 items) walk ~8 items per CTA on the full grid; five more run
#       on a grid cut to 1-3 CTAs (SAW_KERNEL_FWD_CTAS) so every CTA walks many items, empty ones among them
#   (2) compute-sanitizer memcheck, racecheck and synccheck of wgmma-persist on one small case on 3 CTAs (GQA 2:1,
#       documents with padding rows, 12 items of which 2 are empty: 4 items per CTA)
#   (1) and (2) only check results, so they run side by side, six at a time, after a 30-s smoke test on 2 CTAs (a
#       hang there skips everything of wgmma-persist, so the call keeps its budget)
#   (3) forward timing, old (wgmma-pp) and new (wgmma-persist) back to back per row: causal 8K B=4 H=16, 64 packed
#       documents in 32K (B=1 H=16), 8 documents 16K (B=4 H=16), window 1024 16K (B=4 H=16), causal 16K (B=4 H=16);
#       D=128 bf16, 128x128 tiles, median of 10 after 3 warm-ups, useful TFLOP/s; cuDNN SDPA on the causal rows
# Logs and results in $OUT/persist/; a summary table is printed last. FP_PARTS="sass verify sanitize timing cudnn"
# picks parts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
java="$here/runtime/bin/java"
dir=${OUT:-$here}/persist
mkdir -p "$dir/specs"
log="$dir/run.log"
: >"$log"
parts=" ${FP_PARTS:-sass verify sanitize timing cudnn} "
summary=()
t_start=$(date +%s)
note() { echo "$*" | tee -a "$log"; }
now() { date +%s; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>"$log" 2>&1 || true

# ---------------------------------------------------------------- (0) SASS of the persistent and pingpong forwards
if [[ $parts == *" sass "* ]]; then
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
    "$here"/lib/saw-engine-*.jar >"$dir/saw.fatbin" 2>>"$log"
  fns=fwd_wgmmapersist_bf16_d128_q128_kv128,fwd_wgmmapp_bf16_d128_q128_kv128,fwd_wgmmapersist_bf16_d64_q128_kv128,fwd_wgmmapp_bf16_d64_q128_kv128
  timeout 30 cuobjdump --dump-sass --function "$fns" "$dir/saw.fatbin" >"$dir/sass.txt" 2>&1 && grep -q HGMMA "$dir/sass.txt" \
    || timeout 30 cuobjdump --dump-sass "$dir/saw.fatbin" >"$dir/sass.txt" 2>&1 || note "cuobjdump failed"
  awk '/arch = sm_/ {arch=$3} /Function : / {fn=$3} fn ~ /^fwd_wgmma(pp|persist)_/ && arch=="sm_90a" {
         if ($0 ~ /HGMMA/) hg[fn]++; if ($0 ~ /HMMA/) hm[fn]++; if ($0 ~ /LDL|STL/) lm[fn]++; seen[fn]=1 }
       END { for (f in seen) printf "%-40s HGMMA %3d  HMMA %3d  local %3d\n", f, hg[f], hm[f], lm[f] }' \
    "$dir/sass.txt" | sort >"$dir/sass-summary.txt"
  rm -f "$dir/saw.fatbin" "$dir/sass.txt"
  cat "$dir/sass-summary.txt" >>"$log"
  for f in persist_bf16_d128 pp_bf16_d128 persist_bf16_d64 pp_bf16_d64; do
    summary+=("sass $f|$(grep "fwd_wgmma${f}_q128_kv128 " "$dir/sass-summary.txt" | cut -c42-)")
  done
fi
t_sass=$(now)

# ---------------------------------------------------------------- (1) + (2) verify and compute-sanitizer
# 64 packed documents at 32K as flex-compare.sh makes them (lengths cycle through 1, 2, 3 and 4 units)
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n,"; SUM=$((SUM + n)); done
DOCS64="$L$((32768 - SUM))"
# CTAS|verify-args: CTAS "-" = the full grid (SMs x what fits), else the grid cut to that many CTAs
cases=(
  "-|causal --seq 1000 --heads 4 --head-dim 128 --dtype bf16"
  "-|causal --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 128 --dtype fp16 --rows 48"
  "-|and(causal,docs($DOCS64)) --seq 32768 --heads 4 --head-dim 128 --dtype bf16 --rows 48"
  "-|and(causal,docs(1024,1024,1024,1024,1024,1024,1024,1024)) --seq 8192 --heads 4 --head-dim 64 --dtype fp16 --rows 48"
  "-|window(1024) --seq 8192 --heads 4 --head-dim 128 --dtype bf16 --softcap 30 --rows 48"
  "-|random(128,128,4,7) --seq 4096 --heads 4 --kv-heads 1 --head-dim 128 --dtype fp16"
  "-|docs(700,1500,1200,500) --seq 4096 --heads 2 --head-dim 128 --dtype bf16 --softcap 30"
  "-|causal(3096) --seq 1000 --seq-kv 4096 --heads 2 --head-dim 128 --dtype fp16"
  "-|window(256) --seq 1000 --seq-kv 700 --heads 2 --head-dim 64 --dtype bf16 --softcap 10"
  "-|or(sinks(16),and(causal,not(window(300)))) --seq 1000 --seq-kv 1500 --heads 2 --head-dim 64 --dtype bf16 --sinks"
  "-|dilated(3) --seq 1000 --heads 2 --head-dim 128 --dtype bf16 --softcap 20"
  "-|heads(causal,window(128),docs(300,400)) --seq 1000 --heads 6 --head-dim 128 --dtype fp16"
  "3|docs(700,1500,1200,500) --seq 4096 --heads 2 --kv-heads 1 --head-dim 128 --dtype bf16 --softcap 30"
  "3|and(causal,docs(300,90,1000,40,600)) --seq 2300 --heads 4 --kv-heads 2 --head-dim 64 --dtype fp16"
  "3|random(128,128,4,7) --seq 2000 --heads 3 --head-dim 128 --dtype bf16"
  "1|causal --seq 1000 --seq-kv 1500 --heads 4 --head-dim 128 --dtype fp16 --softcap 20"
  "2|full --seq 2100 --heads 2 --head-dim 64 --dtype bf16")
tools=(memcheck racecheck synccheck)
throttle() { while [[ $(jobs -rp | wc -l) -ge 6 ]]; do sleep 0.2; done; }
# smoke test first, on 2 CTAs (5 items each): a new mbarrier pipeline that hangs must not eat the call's budget
hung=
if [[ $parts == *" verify "* || $parts == *" sanitize "* || $parts == *" timing "* ]]; then
  o=$(SAW_JAVA_OPTS="-Dsaw.kernel.fwd=wgmma-persist -Dsaw.kernel.fwd.ctas=2" timeout -k 5 30 "$saw" verify causal \
      --seq 1250 --heads 2 --head-dim 128 --dtype bf16 --block 128x128 --pass fwd 2>&1); rc=$?
  { echo "== smoke: verify wgmma-persist on 2 CTAs, causal 1250, 2 heads"; echo "$o"; echo "rc=$rc"; } >>"$log"
  note "smoke (2 CTAs, 20 items): rc=$rc $(echo "$o" | awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}')"
  summary+=("smoke 2 CTAs|rc=$rc")
  if [[ $rc == 124 || $rc == 137 ]]; then
    hung=1
    note "the persistent forward hangs: verify, sanitizers and its timing are skipped"
    parts=${parts/ verify / }; parts=${parts/ sanitize / }
  fi
fi
if [[ $parts == *" sanitize "* ]]; then
  note "== compute-sanitizer, wgmma-persist on 3 CTAs (documents with padding rows, GQA 2:1, 12 items, 2 empty) =="
  for tool in "${tools[@]}"; do
    throttle
    ( timeout -k 5 80 compute-sanitizer --tool "$tool" --error-exitcode 9 "$java" -Dsaw.kernel.fwd=wgmma-persist \
        -Dsaw.kernel.fwd.ctas=3 -cp "$here/lib/*" saw.app.Main verify 'and(causal,docs(200,300,100))' --seq 768 --heads 2 \
        --kv-heads 1 --head-dim 128 --dtype bf16 --block 128x128 --pass fwd >"$dir/sanitize-$tool.log" 2>&1
      echo "rc=$?" >>"$dir/sanitize-$tool.log" ) &
  done
fi
if [[ $parts == *" verify "* ]]; then
  note "== verify wgmma-persist, forward, 128x128 =="
  for n in "${!cases[@]}"; do
    throttle
    ctas=${cases[$n]%%|*}; read -ra args <<<"${cases[$n]#*|}"
    opts=-Dsaw.kernel.fwd=wgmma-persist; [[ $ctas != - ]] && opts="$opts -Dsaw.kernel.fwd.ctas=$ctas"
    ( SAW_JAVA_OPTS=$opts timeout -k 5 45 "$saw" verify "${args[@]}" --block 128x128 --pass fwd \
        >"$dir/verify-$n.log" 2>&1; echo "rc=$?" >>"$dir/verify-$n.log" ) &
  done
fi
wait
if [[ $parts == *" verify "* ]]; then
  pass=0; fail=0; failed=()
  for n in "${!cases[@]}"; do
    f="$dir/verify-$n.log"; rc=$(tail -1 "$f")
    ctas=${cases[$n]%%|*}; what="${cases[$n]#*|}"; [[ $ctas != - ]] && what="[$ctas CTAs] $what"
    { echo "== verify wgmma-persist $what"; cat "$f"; } >>"$log"
    if [[ $rc == rc=0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("[${what:0:60}]"); fi
    printf '%-4s %s  %s\n' "$([[ $rc == rc=0 ]] && echo ok || echo FAIL)" "${what:0:110}" \
      "$(awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}' "$f")"
    [[ $rc == rc=0 ]] || tail -8 "$f"
  done
  summary+=("verify wgmma-persist fwd|$pass passed, $fail failed${failed:+: ${failed[*]}}")
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

# ---------------------------------------------------------------- (3) timing: wgmma-pp vs wgmma-persist (+ cuDNN)
spec() { # NAME S B MASK_JSON
  cat >"$dir/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": $4 }
JSON
}
CAUSAL='{ "causal": { "offset": 0 } }'
# 8 packed documents as h200-compare.sh makes them (5, 10, 15, 10, 20, 10, 20 and 10 % of S)
L8=""; SUM=0; for pct in 5 10 15 10 20 10 20; do n=$((16384 * pct / 100)); L8="$L8$n, "; SUM=$((SUM + n)); done
L8="$L8$((16384 - SUM))"
L=""; for x in ${DOCS64//,/ }; do L="$L$x, "; done
spec causal-8k 8192 4 "$CAUSAL"
spec docs64-32k 32768 1 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [${L%, }] } } ] }"
spec docs8-16k 16384 4 "{ \"and\": [ $CAUSAL, { \"documents\": { \"lengths\": [$L8] } } ] }"
spec window1024-16k 16384 4 '{ "sliding_window": { "left": 1024, "right": 0 } }'
spec causal-16k 16384 4 "$CAUSAL"
rows=("causal-8k|--batch 4" "docs64-32k|--batch 1" "docs8-16k|--batch 4" "window1024-16k|--batch 4" "causal-16k|--batch 4")
timed() { # NAME FAMILY ARGS...: one saw bench of the forward; prints "median_ms TFLOP/s kernel" or the failure
  local name=$1 fam=$2; shift 2
  local res="$dir/saw-$name-$fam.jsonl"
  [[ $fam == wgmma-persist && -n $hung ]] && { echo "- - skipped:the_persistent_forward_hung"; return; }
  SAW_JAVA_OPTS=-Dsaw.kernel.fwd=$fam timeout -k 5 30 "$saw" bench "$dir/specs/$name.json" "$@" --heads 16 --kv-heads 16 \
    --head-dim 128 --dtype bf16 --block 128x128 --pass fwd --backend gpu --reps 10 --warmup 3 --out "$res" >>"$log" 2>&1
  local rc=$?
  echo "$rc" >"$dir/rc-$name-$fam"
  python3 - "$res" "$rc" <<'PY' 2>>"$log"
import json, sys
path, rc = sys.argv[1], sys.argv[2]
try:
    rows = [json.loads(l) for l in open(path)][1:]
except OSError:
    rows = []
ok = [r for r in rows if r.get("status") == "ok" and r.get("pass") == "fwd"]
if ok:
    r = ok[0]
    print(f"{r['median_ms']:.3f} {r['useful_tflops']:.1f} {r.get('kernel', '')}")
else:
    err = next((str(r.get("error", r.get("status"))) for r in rows), f"no rows, rc={rc}")
    print(f"- - failed:{err[:120].replace(' ', '_')}")
PY
}
if [[ $parts == *" timing "* ]]; then
  note "== forward timing, D=128 bf16 128x128, median of 10 (old wgmma-pp, new wgmma-persist) =="
  for row in "${rows[@]}"; do
    name=${row%%|*}; read -ra extra <<<"${row#*|}"
    read -r ms_old tf_old k_old < <(timed "$name" wgmma-pp "${extra[@]}")
    read -r ms_new tf_new k_new < <(timed "$name" wgmma-persist "${extra[@]}")
    [[ $(cat "$dir/rc-$name-wgmma-persist" 2>/dev/null) =~ ^(124|137)$ ]] && hung=1
    note "$name: wgmma-pp $ms_old ms $tf_old TF ($k_old); wgmma-persist $ms_new ms $tf_new TF ($k_new)"
    ratio=$(python3 -c "print(f'{float(\"$tf_new\") / float(\"$tf_old\"):.3f}x')" 2>/dev/null || echo -)
    summary+=("fwd $name|pp $tf_old  persist $tf_new  persist/pp $ratio  (ms: $ms_old -> $ms_new)")
  done
fi
t_timing=$(now)
if [[ $parts == *" cudnn "* ]] && (( t_timing - t_start < 95 )); then
  cat >"$dir/cudnn.py" <<'PY'
# the peer that ran, saved beside its numbers: cuDNN SDPA forward on the causal rows, median of 10 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for name, B, H, S in (("causal-8k", 4, 16, 8192), ("causal-16k", 4, 16, 16384)):
    try:
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, S, 128, generator=g, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        ts = []
        with torch.no_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            for i in range(13):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record(); F.scaled_dot_product_attention(q, k, v, is_causal=True); b.record(); b.synchronize()
                if i >= 3: ts.append(a.elapsed_time(b))
        ts.sort(); ms = (ts[4] + ts[5]) / 2
        flops = 4 * B * H * 128 * S * (S + 1) / 2
        print(f"{name} {ms:.3f} {flops / ms / 1e9:.1f}")
        del q, k, v
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"{name} - failed:{str(e).splitlines()[0][:120]}")
    sys.stdout.flush()
PY
  timeout 40 python3 "$dir/cudnn.py" >"$dir/cudnn.txt" 2>>"$log"
  note "cudnn rc=$?"
  cat "$dir/cudnn.txt" >>"$log"
  while read -r name ms tf; do summary+=("cudnn fwd $name|$tf TF ($ms ms)"); done <"$dir/cudnn.txt"
elif [[ $parts == *" cudnn "* ]]; then
  summary+=("cudnn|skipped: $((t_timing - t_start)) s spent already (the script keeps under 120 s)")
fi
t_end=$(now)

note ""
note "== summary ($((t_end - t_start)) s: SASS $((t_sass - t_start)) s, verify + sanitizer $((t_checks - t_sass)) s, timing $((t_timing - t_checks)) s, cuDNN $((t_end - t_timing)) s; logs in $dir) =="
for row in "${summary[@]}"; do printf '%-28s %s\n' "${row%%|*}" "${row#*|}" | tee -a "$log"; done
