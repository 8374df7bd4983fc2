#!/usr/bin/env bash
# session 10 (j), call 1: pack at branch persistent-d256 (79d1501, which contains main's d2f20d5); main's engine jar of
# d7fae13 in .varjar (D = 256 kernels unchanged d7fae13..d2f20d5).
# (a) d256-fwd128.sh: the D = 256 128-row forward, now persistent (work queue), verify x11, sanitizers, SASS, rows + cuDNN
# (b) sampled D = 256 verifies with thousands of 128-row tiles (grid capped at the SM count: ~30 rows per CTA), pp + ws,
#     + D = 256 sanitizers on 320 rows (2-3 per CTA)
# (c) d2f20d5's D = 64/128 persistent forward re-checked: bwd-frontier verify, sanitizers pp/ws, 2 big sampled verifies
# (d) A/B at D = 256 forward bf16 64x64: main jar vs branch
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/j1
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { (( $(date +%s) - t0 < $1 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-main
mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.varjar/saw-engine-main.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
java="$pack/runtime/bin/java"
W256="-Dsaw.kernel.fwd256=wgmma-q128"
declare -A hung=()

# ---------------------------------------------------------------- (a) d256-fwd128.sh (alone: it times rows)
el "(a) d256-fwd128.sh"
( OUT=$res timeout -k 5 170 bash "$pack/d256-fwd128.sh" > "$res/d256f.txt" 2>&1; echo "d256-fwd128.sh rc=$?" >> "$res/d256f.txt" )
grep -E "^(ok|FAIL) |timed out" "$res/d256f.txt"
sed -n '/== summary/,$p' "$res/d256f.txt"
grep -q "hang? its remaining runs are skipped" "$res/d256f.txt" && echo "NOTE: a D = 256 family hung in d256-fwd128.sh"

# ---------------------------------------------------------------- (b) + (c) verifies, bwd-frontier in the background
el "(b) big D = 256 verifies, (c) bwd-frontier verify beside them"
( OUT=$res BWF_PARTS="verify" timeout -k 5 200 bash $pack/bwd-frontier.sh > "$res/bwf.txt" 2>&1 ) &
bwf=$!
docs64() { # FILE S BQ BKV
  local L="" SUM=0 n
  for i in $(seq 0 62); do n=$(( (i % 4 + 1) * $2 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
  cat > "$1" <<JSON
{ "schema": "saw.mask/1", "name": "docs64", "seq_len_q": $2, "seq_len_kv": $2, "batch": 1, "heads": 16,
  "block": { "q": $3, "kv": $4 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [$L$(($2 - SUM))] } } ] } }
JSON
}
docs64 "$res/docs64-32k-64.json" 32768 64 64
docs64 "$res/docs64-32k.json" 32768 128 128
big=(
  "pp|256|preset:causal --seq 16384 --batch 2 --heads 16 --dtype bf16 --rows 24 --pass fwd"
  "ws|256|preset:causal --seq 16384 --batch 2 --heads 16 --dtype bf16 --rows 24 --pass fwd"
  "pp|256|$res/docs64-32k-64.json --dtype bf16 --rows 32 --pass fwd"
  "ws|256|$res/docs64-32k-64.json --dtype fp16 --sinks --rows 32 --pass fwd"
  "pp|256|preset:causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --dtype bf16 --sinks --rows 24 --pass fwd"
  "ws|256|window(1024) --seq 16384 --batch 2 --heads 16 --kv-heads 4 --dtype fp16 --softcap 30 --rows 24 --pass fwd"
  "pp|256|random(64,64,10,3) --seq 16384 --heads 8 --kv-heads 2 --dtype bf16 --sinks --rows 16 --pass fwd"
  "ws|256|window(256) --seq 8192 --seq-kv 700 --batch 2 --heads 16 --dtype fp16 --rows 32 --pass fwd"
  "pp|256|and(causal,docs(700,300,200)) --seq 1250 --batch 8 --heads 20 --kv-heads 4 --dtype fp16 --softcap 30 --pass fwd,bwd"
  "pp|128|preset:causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --dtype bf16 --rows 24 --pass fwd"
  "ws|64|preset:causal --seq 16384 --batch 2 --heads 16 --dtype fp16 --softcap 30 --rows 24 --pass fwd"
  "pp|128|$res/docs64-32k.json --dtype bf16 --sinks --rows 32 --pass fwd")
for n in "${!big[@]}"; do
  IFS='|' read -r fam hd c <<<"${big[$n]}"
  read -ra a <<<"$c"
  blk=128x128; [[ $hd == 256 ]] && blk=64x64
  if [[ -n ${hung[$fam$hd]:-} ]]; then echo "verify $fam D=$hd SKIPPED (hung before) $c"; continue; fi
  left 330 || { echo "verify $fam D=$hd SKIPPED (time) $c"; continue; }
  SAW_JAVA_OPTS="-Xmx24g $W256 -Dsaw.kernel.fwd=wgmma-$fam" timeout -k 5 60 "$pack/saw" verify "${a[@]}" --head-dim $hd --block $blk \
    > "$res/verify-big-$n.log" 2>&1; rc=$?
  [[ $rc == 124 || $rc == 137 ]] && hung[$fam$hd]=1
  echo "verify $fam D=$hd rc=$rc $c | $(grep -E '^(PASS|FAIL)' "$res/verify-big-$n.log") $(awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}' "$res/verify-big-$n.log") $(grep -E '^checked' "$res/verify-big-$n.log" | grep -oE 'run and reference [0-9.]+ s|kernels [0-9.]+ s')"
  [[ $rc == 0 ]] || tail -5 "$res/verify-big-$n.log"
done
wait $bwf
grep -A8 "== summary" "$res/bwf.txt"

# ---------------------------------------------------------------- sanitizers: D = 256 (320 rows) and D = 64 (320 rows) side by side
el "sanitizers (320 rows each: 2-3 per CTA)"
san() { # TOOL FAM HD EXTRA...
  local tool=$1 fam=$2 hd=$3; shift 3
  local f="$res/san-$tool-$fam-d$hd.log"
  [[ -n ${hung[$fam$hd]:-} ]] && { echo "skipped: hung" > "$f"; return; }
  timeout -k 5 90 compute-sanitizer --tool $tool --error-exitcode 9 "$java" $W256 -Dsaw.kernel.fwd=wgmma-$fam -cp "$pack/lib/*" \
    saw.app.Main verify 'and(causal,docs(900,700,448))' --seq 2048 --heads 20 --kv-heads 4 --head-dim $hd --dtype bf16 \
    "$@" --pass fwd > "$f" 2>&1; echo "rc=$?" >> "$f"
}
( for tool in memcheck racecheck synccheck; do for fam in pp ws; do san $tool $fam 256 --block 64x64 --sinks --softcap 30; done; done ) &
s256=$!
( for tool in memcheck racecheck synccheck; do for fam in pp ws; do san $tool $fam 64 --block 128x128; done; done ) &
s64=$!
wait $s256 $s64
for f in "$res"/san-*.log; do
  echo "$(basename $f .log) $(tail -1 $f) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) $(grep -E '^(PASS|FAIL)' "$f")"
done

# ---------------------------------------------------------------- (d) A/B timing at D = 256
el "timing (A/B, D = 256 forward)"
bench() { # TAG VARIANT FAM SPEC ARGS...
  local tag=$1 var=$2 fam=$3 spec=$4; shift 4
  left 485 || { echo "bench $tag $var skipped (time)"; return; }
  local p=$pack; [[ $var != new ]] && p=/tmp/pack-$var
  SAW_JAVA_OPTS="-Xmx24g $W256 -Dsaw.kernel.fwd=wgmma-$fam" timeout -k 5 40 "$p/saw" bench "$spec" "$@" --head-dim 256 --dtype bf16 \
    --block 64x64 --pass fwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
cat > "$res/docs8-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs8", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 64, "kv": 64 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [410, 819, 1229, 819, 1638, 819, 1638, 820] } } ] } }
JSON
for r in 1 2; do for v in main new; do bench c8k-r$r $v pp preset:causal --seq 8192 --batch 4 --heads 16; done; done
for v in new main; do bench c16k $v pp preset:causal --seq 16384 --batch 2 --heads 16; done
for v in main new; do bench gqa16k $v pp preset:causal --seq 16384 --batch 1 --heads 32 --kv-heads 8; done
for v in new main; do bench win1k $v pp 'window(1024)' --seq 8192 --batch 4 --heads 16; done
for v in main new; do bench docs8 $v pp "$res/docs8-8k.json"; done
for v in new main; do bench c8k-ws $v ws preset:causal --seq 8192 --batch 4 --heads 16; done
for v in main new; do bench docs64 $v pp "$res/docs64-32k-64.json"; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.OrderedDict()
order = ["c8k-r1", "c8k-r2", "c16k", "gqa16k", "win1k", "docs8", "c8k-ws", "docs64"]
for f in glob.glob(sys.argv[1] + "/*.jsonl"):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
    rows.setdefault(tag, {})[var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
print(f"{'row':10s} {'main ms':>9s} {'TF':>6s} {'new ms':>9s} {'TF':>6s} {'main/new':>8s}  kernel main | new")
for tag in sorted(rows, key=lambda t: order.index(t) if t in order else 99):
    v = rows[tag]; o, n = v.get("main"), v.get("new")
    print(f"{tag:10s}", f"{o[0]:9.3f} {o[1]:6.1f}" if o else f"{'-':>9s} {'-':>6s}", f"{n[0]:9.3f} {n[1]:6.1f}" if n else f"{'-':>9s} {'-':>6s}",
          f"{o[0] / n[0]:7.3f}x" if o and n else f"{'':8s}", f" {o[2] if o else '-'} | {n[2] if n else '-'}")
PY
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader
el done
