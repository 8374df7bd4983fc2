#!/usr/bin/env bash
# session 10, call 4 (pack at branch mask-prefetch; main's engine jar of 2cf8d45, sm_90a only, in .varjar): the
# Hopper forwards with each thread's PARTIAL-tile mask rows prefetched into L1 checked (SASS, bwd-frontier verify,
# sampled verifies on PARTIAL-heavy masks at D = 64/128/256, memcheck + racecheck) and timed A/B against main, forward
# only, alternating
set -uo pipefail
root=$PWD
pack=$root/.nsapack
res=$OUT/j4
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
d=/tmp/pack-main
mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
cp "$root/.varjar/saw-engine-main.jar" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"
java="$pack/runtime/bin/java"
python3 -c "import zipfile,glob; z=zipfile.ZipFile(glob.glob('$pack/lib/saw-engine-*.jar')[0]); open('/tmp/saw.fatbin','wb').write(z.read('saw/kernels/saw_attention.fatbin'))"
for f in fwd_wgmmapp_bf16_d128_q128_kv128 fwd_wgmmapp_bf16_d256_q128_kv64; do
  cuobjdump -sass -fun $f /tmp/saw.fatbin > "$res/sass-$f.txt" 2>&1
  echo "sass $f: $(grep -c HGMMA "$res/sass-$f.txt") HGMMA, $(grep -c 'CCTL' "$res/sass-$f.txt") CCTL, $(grep -cE 'STL|LDL' "$res/sass-$f.txt") local"
  grep -m4 -E "CCTL" "$res/sass-$f.txt"
done
gzip -9 "$res"/sass-*.txt
cat > "$res/win1k.json" <<JSON
{ "schema": "saw.mask/1", "name": "window-1024", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "sliding_window": { "left": 1024, "right": 0 } } }
JSON
cat > "$res/docs8-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs8", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [410, 819, 1229, 819, 1638, 819, 1638, 820] } } ] } }
JSON
L=""; SUM=0; for i in $(seq 0 62); do n=$(( (i % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
cat > "$res/docs64-32k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs64", "seq_len_q": 32768, "seq_len_kv": 32768, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [$L$((32768 - SUM))] } } ] } }
JSON
el "checks"
( OUT=$res BWF_PARTS="verify" timeout -k 5 200 bash $pack/bwd-frontier.sh > "$res/bwf.txt" 2>&1 ) &
bwf=$!
big=(
  "128x128|pp|$res/docs64-32k.json --head-dim 128 --dtype bf16 --rows 32 --pass fwd"
  "128x128|ws|$res/docs64-32k.json --head-dim 64 --dtype fp16 --softcap 30 --sinks --rows 32 --pass fwd"
  "128x128|pp|and(causal,docs(700,300,200)) --seq 1250 --batch 8 --heads 20 --kv-heads 4 --head-dim 128 --dtype bf16 --pass fwd"
  "128x128|pp|window(1024) --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --rows 24 --pass fwd"
  "128x128|pp|dilated(3) --seq 3000 --heads 4 --head-dim 128 --dtype fp16 --pass fwd"
  "64x64|pp|$res/docs64-32k.json --head-dim 256 --dtype bf16 --rows 24 --pass fwd"
  "64x64|pp|window(1024) --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 256 --dtype fp16 --softcap 30 --rows 24 --pass fwd"
  "64x64|ws|and(causal,docs(700,300,200)) --seq 1250 --batch 4 --heads 6 --head-dim 256 --dtype bf16 --sinks --pass fwd")
for n in "${!big[@]}"; do
  blk=${big[$n]%%|*}; r=${big[$n]#*|}; fam=${r%%|*}; c=${r#*|}
  read -ra a <<<"$c"
  SAW_JAVA_OPTS="-Xmx24g -Dsaw.kernel.fwd=wgmma-$fam" timeout 90 "$pack/saw" verify "${a[@]}" --block $blk > "$res/verify-big-$n.log" 2>&1
  echo "verify $fam rc=$? $c | $(grep -E '^(PASS|FAIL)' "$res/verify-big-$n.log")"
done
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$java" -Dsaw.kernel.fwd=wgmma-pp -cp "$pack/lib/*" \
    saw.app.Main verify 'and(causal,docs(900,700,448))' --seq 2048 --heads 20 --kv-heads 4 --head-dim 64 --dtype bf16 \
    --block 128x128 --pass fwd > "$res/san-$tool.log" 2>&1; echo "rc=$?" >> "$res/san-$tool.log"
  echo "san $tool d64 $(tail -1 $res/san-$tool.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san-$tool.log" | tail -1) $(grep -E '^(PASS|FAIL)' "$res/san-$tool.log")"
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$java" -cp "$pack/lib/*" \
    saw.app.Main verify 'and(causal,docs(300,200,140))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 \
    --block 64x64 --pass fwd > "$res/san256-$tool.log" 2>&1; echo "rc=$?" >> "$res/san256-$tool.log"
  echo "san $tool d256 $(tail -1 $res/san256-$tool.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san256-$tool.log" | tail -1) $(grep -E '^(PASS|FAIL)' "$res/san256-$tool.log")"
done
wait $bwf
grep -A6 "== summary" "$res/bwf.txt"
el "timing"
bench() { # TAG VARIANT D BLOCK SPEC ARGS...
  local tag=$1 var=$2 hd=$3 blk=$4 spec=$5; shift 5
  local p=$pack; [[ $var != new ]] && p=/tmp/pack-$var
  SAW_JAVA_OPTS=-Xmx24g timeout 100 "$p/saw" bench "$spec" "$@" --head-dim $hd --dtype bf16 --block $blk \
    --pass fwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
for r in 1 2; do for v in main new; do bench docs64-d128-r$r $v 128 128x128 "$res/docs64-32k.json"; done; done
for v in new main; do bench docs8-d128 $v 128 128x128 "$res/docs8-8k.json"; done
for v in main new; do bench win1k-d128 $v 128 128x128 "$res/win1k.json"; done
for v in new main; do bench c8k-d128 $v 128 128x128 preset:causal --seq 8192 --batch 4 --heads 16; done
for v in main new; do bench c16k-d128 $v 128 128x128 preset:causal --seq 16384 --batch 4 --heads 16; done
for v in new main; do bench docs64-d64 $v 64 128x128 "$res/docs64-32k.json"; done
for v in main new; do bench win1k-d64 $v 64 128x128 "$res/win1k.json"; done
for v in new main; do bench docs8-d256 $v 256 64x64 "$res/docs8-8k.json"; done
for v in main new; do bench win1k-d256 $v 256 64x64 "$res/win1k.json"; done
for v in new main; do bench c8k-d256 $v 256 64x64 preset:causal --seq 8192 --batch 4 --heads 16; done
for v in main new; do bench docs8-d128-r2 $v 128 128x128 "$res/docs8-8k.json"; done
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
