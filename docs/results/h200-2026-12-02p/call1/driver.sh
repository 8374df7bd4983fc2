#!/usr/bin/env bash
# Session 16, call 1.
#  A. Branch keptmax-pack-first (35ce157; .varjar/packfirst.fatbin, sm_90a only, on the host code of the fatbin-less
#     jar, unchanged since 756b4be): the kept row max at every head dim, P packed before the rescale's branch. Checks
#     (verify at D = 64/128/256, both Hopper families; memcheck), then the forward A/B against main = the real build
#     of 290cd8b (.gpupack-p1's own engine jar), three interleaved rounds.
#  B. NSA on the real build of 290cd8b (includes 8cb882f, the kept max in the warp-order forward at D = 128):
#     nsa-run.sh's final check (quick verify matrix, memcheck, fla-core 0.5.2 side by side on the final shapes).
# As run. Its bare `wait` before part B also waited for the process substitution that tees the log, so part B
# never started and the call ran to its 600 s limit; later drivers wait for the pid they mean.
set -uo pipefail
root=$PWD
pack=$root/.gpupack-p1
res=$OUT/p1
mkdir -p "$res/ab" "$res/specs"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
ln -s "$pack" /tmp/pack-main
d=/tmp/pack-pf; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
rm -f "$d"/lib/saw-engine-*.jar
python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/packfirst.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
(mkdir -p /tmp/site && python3 -m pip install --no-deps --target /tmp/site -q "$root"/.whl/*.whl > "$res/pip.log" 2>&1) &
el "A1. verify pf"
. "$root/bench/gpu/specs-lib.sh"
frontier_specs "$res/specs"
vfail=0
verify() { # OPTS ARGS...
  local opts=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g $opts" timeout -k 5 90 /tmp/pack-pf/saw verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify pf [$opts] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify pf rc=$rc [$opts] $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"||$1=="dQ"{printf "%s %s  ", $1, $2}')"
}
for fam in wgmma-pp wgmma-ws; do
  F="-Dsaw.kernel.fwd=$fam"
  for D in 64 128; do
    verify "$F" preset:causal --seq 4096 --heads 8 --kv-heads 2 --head-dim $D --dtype bf16 --scale 1 --pass fwd
    verify "$F" 'and(causal,docs(300,500,170,30,64))' --seq 1100 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim $D --block 128x128 --scale 0.7
  done
  verify "$F" 'random(128,128,10,3)' --seq 8192 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --sinks --softcap 30 --rows 16 --pass fwd --block 128x128
  verify "$F" 'window(256)' --seq 8192 --seq-kv 700 --batch 2 --heads 16 --head-dim 128 --dtype fp16 --rows 32 --pass fwd --block 128x128
  verify "$F" causal --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 2 --head-dim 256 --block 64x64 --dtype bf16 --sinks --scale 1 --pass fwd
done
verify -Dsaw.kernel.fwd=wgmma-overlap 'and(causal,docs(900,700,400))' --seq 2000 --heads 4 --head-dim 128 --block 128x128 --dtype bf16 --scale 1 --pass fwd
verify -Dsaw.kernel.fwd=wgmma 'window(300)' --seq 2000 --heads 4 --head-dim 64 --block 128x128 --dtype fp16 --softcap 20 --pass fwd
el "verify failures: $vfail"
if [[ $vfail == 0 ]]; then
  o=$(timeout -k 5 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$pack/runtime/bin/java" -Djava.awt.headless=true \
      -Dsaw.kernel.fwd=wgmma-pp -cp "/tmp/pack-pf/lib/*" saw.app.Main verify 'and(causal,docs(900,1000,1300,500,700,300,800))' \
      --seq 5500 --heads 8 --kv-heads 2 --head-dim 128 --block 128x128 --dtype bf16 --sinks --scale 1 --pass fwd --backend gpu 2>&1); rc=$?
  echo "$o" > "$res/sanitizer.log"
  echo "memcheck pf rc=$rc: $(echo "$o" | grep -E 'ERROR SUMMARY' | tail -1)"
fi
el "A2. A/B main vs pf"
spec() { # NAME S B H (causal, 64x64)
  cat >"$res/specs/$1.json" <<JSON
{ "schema": "saw.mask/1", "name": "$1", "seq_len_q": $2, "seq_len_kv": $2, "batch": $3, "heads": $4,
  "block": { "q": 64, "kv": 64 }, "mask": { "causal": { "offset": 0 } } }
JSON
}
spec w-causal-8k 8192 4 16
spec w-causal-16k 16384 2 16
bench() { # TAG VARIANT SPEC ARGS
  SAW_JAVA_OPTS="-Xmx48g" timeout -k 5 60 /tmp/pack-$2/saw bench "$res/specs/$3.json" --dtype bf16 --pass fwd \
    --reps 20 --warmup 3 --backend gpu --out "$res/ab/$1-$2.jsonl" $4 >>"$res/bench.log" 2>&1 || echo "bench $1 $2 rc=$?"
}
W='--block 64x64 --head-dim 256'
N='--block 128x128 --head-dim 128'
S='--block 128x128 --head-dim 64'
ROWS=("causal-8k|$S" "causal-16k|$S" "gqa-32k|$S --kv-heads 8" "causal-8k|$N" "causal-16k|$N" "gqa-32k|$N --kv-heads 8"
      "docs64-32k|$N" "w-causal-8k|$W" "w-causal-16k|$W")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3; do
    case $r in 1|3) vs="main pf";; 2) vs="pf main";; esac
    for row in "${ROWS[@]}"; do
      left 400 || break
      IFS='|' read -r sp extra <<<"$row"
      dtag=$(echo "$extra" | sed -E 's/.*--head-dim ([0-9]+).*/d\1/')
      for v in $vs; do bench "$dtag-$sp-r$r" "$v" "$sp" "$extra"; done
    done
    el "round $r done"
  done
fi
python3 - "$res/ab" <<'PY' | tee "$res/ab.txt"
import collections, glob, json, os, statistics, sys
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f) if l.strip()) if "median_ms" in r]
    if ok: rows[tag][var] = (ok[-1]["median_ms"], ok[-1].get("useful_tflops", 0), ok[-1].get("kernel", "?"))
summary = collections.defaultdict(list); tf = collections.defaultdict(list)
for tag in sorted(rows):
    v = rows[tag]
    if "main" in v and "pf" in v:
        x = v["main"][0] / v["pf"][0]
        print(f'{tag:24s}  main {v["main"][0]:7.3f} ms {v["main"][1]:6.1f}  pf {v["pf"][0]:7.3f} ms {v["pf"][1]:6.1f}  {x:.3f}x  [{v["main"][2]}]')
        row = tag.rsplit("-r", 1)[0]; summary[row].append(x); tf[row].append((v["main"][1], v["pf"][1]))
print()
for row, xs in sorted(summary.items()):
    print(f'{row:18s} main time / pf time: median {statistics.median(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f})  '
          f'TFLOP/s main {statistics.median(a for a, b in tf[row]):.1f} pf {statistics.median(b for a, b in tf[row]):.1f}')
PY
el "B. NSA on the real build (nsa-run.sh final check)"
wait
export PYTHONPATH=/tmp/site
tail -2 "$res/pip.log"
left 590 && OUT=$res NSA_PARTS="verify sanitizer compare" NSA_VERIFY=quick NSA_SAN_TOOLS=memcheck NSA_SHAPES=final \
  NSA_COMPARE_TIMEOUT=110 timeout -k 5 $(( 585 - ($(date +%s) - t0) )) bash "$pack/nsa-run.sh" > "$res/nsa-run.log" 2>&1
echo "nsa-run rc=$?"; tail -40 "$res/nsa-run.log"
el done
cd "$OUT" && tar czf p1-logs.tgz p1 && rm -rf p1/ab p1/specs p1/bench.log p1/sanitizer.log p1/verify.log && ls -la p1
