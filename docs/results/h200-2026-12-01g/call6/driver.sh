#!/usr/bin/env bash
# session 7, call 6: racecheck's 9 hazards on the D=256 backward v2d (51604ea): SASS around the reported offsets, racecheck
# on v2d, v2e ((b) reverted: all products waited before the tile barrier) and v2f ((a) reverted: the tile read waited
# before barrier 1), and their times on causal 8K
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/f6
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
grep -i commit "$pack/saw" | head -1
mkvar() { local d=/tmp/pack-$1; mkdir -p "$d/lib"; ln -sf "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; rm "$d"/lib/saw-engine-*.jar
  cp "$2" "$d/lib/"; cp "$pack/saw" "$d/saw"; chmod +x "$d/saw"; }
mkvar v2e "$root/.oldjar/saw-engine-v2e.jar"
mkvar v2f "$root/.oldjar/saw-engine-v2f.jar"
ln -s "$pack" /tmp/pack-v2d
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  "$pack"/lib/saw-engine-*.jar > /tmp/v2d.fatbin
cuobjdump -sass -fun bwd_wgmma_bf16_d256_q64_kv64_softcap /tmp/v2d.fatbin > "$res/sass-v2d-softcap.txt" 2>&1
echo "sass rc=$? lines $(wc -l < "$res/sass-v2d-softcap.txt")"
for off in 5d60 5e70 5f00 6440 7090 c100 cd20 d2e0 d310 d470 d490; do
  echo "== $off"; grep -n -B3 -A1 "/\*0*$off\*/" "$res/sass-v2d-softcap.txt" | cut -c1-120
done > "$res/sass-offsets.txt"
gzip -f "$res/sass-v2d-softcap.txt"
el "racecheck"
for v in v2d v2e v2f; do
  o=$(timeout -k 5 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$pack/runtime/bin/java" -cp "/tmp/pack-$v/lib/*" saw.app.Main verify \
      'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x64 --sinks \
      --softcap 30 --pass fwd,bwd 2>&1); rc=$?
  echo "$o" > "$res/racecheck-$v.log"
  echo "racecheck $v rc=$rc $(echo "$o" | grep -E 'RACECHECK SUMMARY|^PASS|^FAIL' | tr '\n' ' ')"
done
o=$(timeout -k 5 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$pack/runtime/bin/java" -cp "$pack/lib/*" saw.app.Main verify \
    'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 256 --dtype bf16 --block 64x64 --pass fwd,bwd 2>&1); rc=$?
echo "$o" > "$res/racecheck-v2d-nocap.log"; echo "racecheck v2d no softcap rc=$rc $(echo "$o" | grep -E 'RACECHECK SUMMARY')"
el "timing"
bench() { # TAG VARIANT
  SAW_JAVA_OPTS=-Xmx24g timeout 120 "/tmp/pack-$2/saw" bench preset:causal --seq 8192 --batch 4 --heads 16 --head-dim 256 --dtype bf16 --block 64x64 \
    --pass bwd --backend gpu --reps 10 --warmup 2 --out "$res/bench/$1-$2.jsonl" >> "$res/bench.log" 2>&1
}
for round in 1 2; do for v in v2d v2e v2f; do bench "causal8k-r$round" $v; done; done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "bwd"]
    print(os.path.basename(f)[:-6], f"{ok[0]['median_ms']:.3f} ms {ok[0]['useful_tflops']:.1f} TF" if ok else "-")
PY
el done
