#!/usr/bin/env bash
# session 9, call 2 (pack at the persistent-fwd branch, 7c70a0e; main's engine jar of d7fae13 in .varjar): the
# persistent warp-specialised forward at D = 64 / 128 checked (bwd-frontier verify, sampled verifies with many rows per
# CTA, rows without kv tiles, sanitizers on 2-3 rows per CTA, SASS spill sites) and timed A/B against main
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/i2
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-main
mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.varjar/saw-engine-main.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
java="$pack/runtime/bin/java"
unzip -p "$pack"/lib/saw-engine-*.jar saw/kernels/saw_attention.fatbin > /tmp/saw.fatbin
for f in fwd_wgmmapp_bf16_d128_q128_kv128 fwd_wgmmaws_bf16_d64_q128_kv128; do
  cuobjdump -sass -fun $f /tmp/saw.fatbin > "$res/sass-$f.txt" 2>&1
  echo "sass $f: $(grep -c HGMMA "$res/sass-$f.txt") HGMMA, $(grep -cE 'STL|LDL' "$res/sass-$f.txt") local"
  grep -nE "STL|LDL" "$res/sass-$f.txt" | head -8
done
el "checks"
( OUT=$res BWF_PARTS="verify" timeout -k 5 200 bash $pack/bwd-frontier.sh > "$res/bwf.txt" 2>&1 ) &
bwf=$!
L=""; SUM=0; for i in $(seq 0 62); do n=$(( (i % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
cat > "$res/docs64-32k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs64", "seq_len_q": 32768, "seq_len_kv": 32768, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [$L$((32768 - SUM))] } } ] } }
JSON
big=(
  "pp|preset:causal --seq 16384 --batch 2 --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 --pass fwd,bwd"
  "ws|preset:causal --seq 16384 --batch 2 --heads 16 --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd"
  "pp|$res/docs64-32k.json --head-dim 128 --dtype bf16 --rows 32 --pass fwd,bwd"
  "ws|random(128,128,10,3) --seq 16384 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --sinks --rows 16 --pass fwd,bwd"
  "pp|window(256) --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 64 --dtype fp16 --rows 32 --pass fwd,bwd"
  "ws|and(causal,docs(700,300,200)) --seq 1250 --batch 8 --heads 20 --kv-heads 4 --head-dim 128 --dtype bf16 --pass fwd,bwd")
for n in "${!big[@]}"; do
  fam=${big[$n]%%|*}; c=${big[$n]#*|}
  read -ra a <<<"$c"
  SAW_JAVA_OPTS="-Xmx24g -Dsaw.kernel.fwd=wgmma-$fam" timeout 90 "$pack/saw" verify "${a[@]}" --block 128x128 > "$res/verify-big-$n.log" 2>&1
  echo "verify $fam rc=$? $c | $(grep -E '^(PASS|FAIL)' "$res/verify-big-$n.log") $(grep -E 'kernel|fwd_wgmma' "$res/verify-big-$n.log" | head -1)"
done
wait $bwf
grep -A6 "== summary" "$res/bwf.txt"
el "sanitizers (2-3 rows per CTA: 16 x 20 = 320 rows)"
for tool in memcheck racecheck synccheck; do
  for fam in pp ws; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$java" -Dsaw.kernel.fwd=wgmma-$fam -cp "$pack/lib/*" \
      saw.app.Main verify 'and(causal,docs(900,700,448))' --seq 2048 --heads 20 --kv-heads 4 --head-dim 64 --dtype bf16 \
      --block 128x128 --pass fwd > "$res/san-$tool-$fam.log" 2>&1; echo "rc=$?" >> "$res/san-$tool-$fam.log"
    echo "san $tool $fam $(tail -1 $res/san-$tool-$fam.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san-$tool-$fam.log" | tail -1) $(grep -E '^(PASS|FAIL)' "$res/san-$tool-$fam.log")"
  done
done
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$java" -cp "$pack/lib/*" saw.app.Main verify causal \
  --seq 2048 --batch 2 --heads 12 --head-dim 128 --dtype fp16 --block 128x128 --pass fwd > "$res/san-memcheck-d128.log" 2>&1
echo "san memcheck d128 rc=$? $(grep -E 'ERROR SUMMARY' "$res/san-memcheck-d128.log" | tail -1)"
el "timing"
bench() { # TAG VARIANT D SPEC ARGS...
  local tag=$1 var=$2 hd=$3 spec=$4; shift 4
  local p=$pack; [[ $var != new ]] && p=/tmp/pack-$var
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "$p/saw" bench "$spec" "$@" --head-dim $hd --dtype bf16 --block 128x128 \
    --pass fwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
W=$(( 8192 )); 
cat > "$res/docs8-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs8", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [410, 819, 1229, 819, 1638, 819, 1638, 820] } } ] } }
JSON
for r in 1 2; do for v in main new; do bench c8k-d128-r$r $v 128 preset:causal --seq 8192 --batch 4 --heads 16; done; done
for v in new main; do bench c16k-d128 $v 128 preset:causal --seq 16384 --batch 4 --heads 16; done
for v in main new; do bench gqa32k-d128 $v 128 preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8; done
for r in 1 2; do for v in new main; do bench docs64-d128-r$r $v 128 "$res/docs64-32k.json"; done; done
for v in main new; do bench docs8-d128 $v 128 "$res/docs8-8k.json"; done
for v in new main; do bench win1k-d128 $v 128 'window(1024)' --seq 8192 --batch 4 --heads 16; done
for v in main new; do bench c8k-d64 $v 64 preset:causal --seq 8192 --batch 4 --heads 16; done
for v in new main; do bench c16k-d64 $v 64 preset:causal --seq 16384 --batch 4 --heads 16; done
for v in main new; do bench docs64-d64 $v 64 "$res/docs64-32k.json"; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
    rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
for tag, v in rows.items():
    o, n = v.get("main"), v.get("new")
    print(f"{tag:16s}", f"main {o[0]:.3f} ms {o[1]:.1f}" if o else "main -", f"new {n[0]:.3f} ms {n[1]:.1f}" if n else "new -",
          f"{o[0] / n[0]:.3f}x" if o and n else "", n[2] if n else "")
PY
el done
