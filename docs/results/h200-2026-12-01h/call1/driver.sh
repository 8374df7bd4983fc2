#!/usr/bin/env bash
# session 8, call 1: (a) D=64 backward with K/V as register A fragments (branch d64-rs-kv, c7b3f74, fatbin only)
# checked (bwd-frontier verify, D=64 sanitizers, SASS) and timed A/B against main (7761ded); (b) Nsight Compute
# profiles: D=256 128-row forward (causal 8K), NSA block + merge forward, NSA warp forward, NSA chunked backward (T=32K, G=16)
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/h1
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
mkvar() { # NAME JAR
  local d=/tmp/pack-$1
  mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
  cp "$2" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"; cp "$pack"/bwd-frontier.sh "$pack"/hopper-lib.sh "$d/"
}
mkvar rs "$root/.oldjar/saw-engine-rs.jar"
java="$pack/runtime/bin/java"
el "checks (rs)"
( OUT=$res BWF_PARTS="verify" timeout -k 5 200 bash /tmp/pack-rs/bwd-frontier.sh > "$res/bwf.txt" 2>&1 ) &
bwf=$!
for tool in memcheck racecheck synccheck; do
  ( timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 "$java" -cp "/tmp/pack-rs/lib/*" \
    saw.app.Main verify 'and(causal,docs(700,300,200))' --seq 1250 --heads 2 --kv-heads 1 --head-dim 64 --dtype bf16 \
    --block 128x128 --pass fwd,bwd > "$res/san64-$tool.log" 2>&1; echo "rc=$?" >> "$res/san64-$tool.log" ) &
done
wait
for tool in memcheck racecheck synccheck; do echo "san64 $tool $(tail -1 $res/san64-$tool.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san64-$tool.log" | tail -1)"; done
for c in "causal --seq 1001 --heads 4 --kv-heads 1 --dtype bf16" "random(128,128,30,5) --seq 4096 --heads 8 --kv-heads 2 --dtype fp16 --sinks --softcap 30" "causal --seq 3 --heads 2 --dtype bf16"; do
  read -ra a <<<"$c"
  timeout 60 /tmp/pack-rs/saw verify "${a[@]}" --head-dim 64 --block 128x128 --pass fwd,bwd > "$res/verify64.log" 2>&1
  echo "verify d64 rc=$? $c $(grep -E '^(PASS|FAIL)' "$res/verify64.log") $(awk '$1=="dQ"||$1=="dK"{printf "%s %s ", $1, $2}' "$res/verify64.log")"
done
grep -A16 "== summary" "$res/bwf.txt"; cat "$res/bwd/sass-summary.txt" 2>/dev/null | grep d64
el "timing d64"
L=""; SUM=0; for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
cat > "$res/docs64-32k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs64", "seq_len_q": 32768, "seq_len_kv": 32768, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [$L$((32768 - SUM))] } } ] } }
JSON
bench64() { # TAG VARIANT SPEC ARGS...
  local tag=$1 var=$2 spec=$3; shift 3
  local p=$pack; [[ $var != main ]] && p=/tmp/pack-$var
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "$p/saw" bench "$spec" "$@" --head-dim 64 --dtype bf16 --block 128x128 \
    --pass bwd --backend gpu --reps 10 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
for round in 1 2; do for var in main rs; do bench64 "causal8k-r$round" $var preset:causal --seq 8192 --batch 4 --heads 16; done; done
for var in main rs; do bench64 causal16k $var preset:causal --seq 16384 --batch 4 --heads 16; done
for var in rs main; do bench64 gqa32k $var preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8; done
for var in main rs; do bench64 docs64 $var "$res/docs64-32k.json"; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "bwd"]
    rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
for tag, v in rows.items():
    o, n = v.get("main"), v.get("rs")
    print(tag, f"main {o[0]:.3f} ms {o[1]:.1f}" if o else "main -", f"rs {n[0]:.3f} ms {n[1]:.1f}" if n else "rs -",
          f"{o[0] / n[0]:.3f}x" if o and n else "", n[2] if n else "")
PY
prof() { # NAME KERNEL_REGEX SKIP COUNT ENV -- saw args
  local name=$1 k=$2 skip=$3 count=$4 envs=$5; shift 6
  env $envs timeout -k 5 200 ncu --clock-control none --target-processes all -k regex:"$k" --launch-skip $skip --launch-count $count \
    --set full --import-source no -f -o "$res/prof-$name" "$pack/saw" "$@" > "$res/prof-$name.log" 2>&1
  echo "ncu $name rc=$?"
  ncu -i "$res/prof-$name.ncu-rep" --page details --print-details all > "$res/prof-$name-details.txt" 2>&1
  ncu -i "$res/prof-$name.ncu-rep" --page source --csv --print-source sass > "$res/prof-$name-source.csv" 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Achieved Occ" "$res/prof-$name-details.txt" | head -40
  gzip -f "$res/prof-$name-source.csv" "$res/prof-$name-details.txt"; rm -f "$res/prof-$name.ncu-rep"
  el "profiled $name"
}
prof d256fwd '^fwd_wgmmapp_bf16_d256_q128' 2 1 "SAW_JAVA_OPTS=-Xmx24g" -- bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 \
  --head-dim 256 --dtype bf16 --block 64x64 --pass fwd --reps 1 --warmup 2 --out /tmp/ncu1.jsonl
NSA="--nsa random --seq 32768 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --reps 1 --warmup 2"
prof nsa-block '^nsa_(fwd_block|merge)' 2 2 "SAW_NSA_FWD=block" -- bench $NSA --pass fwd --out /tmp/ncu2.jsonl
prof nsa-warp '^nsa_fwd_warp' 2 1 "SAW_NSA_FWD=warp" -- bench $NSA --pass fwd --out /tmp/ncu3.jsonl
prof nsa-bwd '^nsa_bwd' 1 1 "SAW_NSA_FWD=warp" -- bench $NSA --pass bwd --out /tmp/ncu4.jsonl
el done
