#!/usr/bin/env bash
# Session 15, call 6: the kept row max in the NSA warp-order forward (nsa_fwd_warp_*: O is 64 registers a lane at
# D = 128 and was rescaled after every 16-key chunk; now only when a row's max passes the kept one by 2^8 in P, skipped
# per warp). main = the real build of f608c17 (.gpupack-o2's engine jar); nsakm = its host code (.varjar's
# fatbin-less jar) with .varjar/nsakm.fatbin (sm_90a only). Random causal selections, S = 16, HQ = 64, Hkv = 4.
set -uo pipefail
root=$PWD
pack=$root/.gpupack-o2
res=$OUT/o6
mkdir -p "$res/ab"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { [[ $(( $(date +%s) - t0 )) -lt $1 ]]; }
for v in main nsakm; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
done
rm -f /tmp/pack-nsakm/lib/saw-engine-*.jar
python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/nsakm.fatbin" /tmp/pack-nsakm/lib/saw-engine-0.1.0-SNAPSHOT.jar <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
vfail=0
verify() { # ARGS...
  local out rc
  out=$(SAW_NSA_FWD=warp timeout -k 5 60 /tmp/pack-nsakm/saw verify --backend gpu "$@" 2>&1); rc=$?
  { echo "== verify nsakm $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify rc=$rc $* :: $(echo "$out" | awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}')"
}
verify --nsa random --seq 2048 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 --pass fwd
verify --nsa random --seq 2048 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 --scale 1 --pass fwd
verify --nsa random --seq 1500 --heads 48 --kv-heads 2 --head-dim 64 --nsa-s 8 --nsa-block 32 --dtype fp16 --softcap 30 --pass fwd
verify --nsa scored --seq 2048 --heads 32 --kv-heads 2 --head-dim 128 --nsa-s 12 --nsa-block 128 --dtype fp16 --scale 0.7 --pass fwd
verify --nsa random --seq 1000 --heads 16 --kv-heads 1 --head-dim 64 --nsa-s 4 --nsa-block 64 --dtype bf16 --scale 1 --pass fwd
el "verify failures: $vfail"
bench() { # TAG VARIANT ARGS...
  local tag=$1 v=$2; shift 2
  SAW_NSA_FWD=warp timeout -k 5 60 /tmp/pack-$v/saw bench --nsa random --heads 64 --kv-heads 4 --nsa-s 16 --nsa-block 64 \
    --dtype bf16 --backend gpu --pass fwd --warmup 3 --reps 10 --out "$res/ab/$tag-$v.jsonl" "$@" >>"$res/bench.log" 2>&1 \
    || echo "bench $tag $v rc=$?"
}
ROWS=("t32k-d128|--seq 32768 --head-dim 128" "t8k-d128|--seq 8192 --head-dim 128" "t32k-d64|--seq 32768 --head-dim 64")
if [[ $vfail == 0 ]]; then
  for r in 1 2 3; do
    case $r in 1|3) vs="main nsakm";; 2) vs="nsakm main";; esac
    for row in "${ROWS[@]}"; do
      left 170 || break
      IFS='|' read -r tag extra <<<"$row"
      for v in $vs; do bench "$tag-r$r" "$v" $extra; done
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
summary = collections.defaultdict(list)
for tag in sorted(rows):
    v = rows[tag]
    if "main" in v and "nsakm" in v:
        x = v["main"][0] / v["nsakm"][0]
        print(f'{tag:16s}  main {v["main"][0]:7.3f} ms {v["main"][1]:6.1f}  nsakm {v["nsakm"][0]:7.3f} ms {v["nsakm"][1]:6.1f}  {x:.3f}x  [{v["main"][2]}]')
        summary[tag.rsplit("-r", 1)[0]].append(x)
print()
for row, xs in sorted(summary.items()):
    print(f'{row:12s} main time / nsakm time: median {statistics.median(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f})')
PY
el done
cd "$OUT" && tar czf o6-logs.tgz o6 && rm -rf o6/ab o6/bench.log && ls -la o6
