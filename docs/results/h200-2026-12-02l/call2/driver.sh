#!/usr/bin/env bash
# session 12, call 2 (pack .gpupack-l2 at branch nsa-fwd-lean: the per-block NSA kernels walk their rows with a cursor
# instead of dividing by G, and the wgmma forward gathers the next step while S runs; "main" = the same pack with
# main's sm_90a kernels, .varjar/main.fatbin, whose NSA host code is this pack's): NSA verify (quick matrix), memcheck
# and racecheck on the per-block forward and the wgmma backward, then forward/backward A/B main vs lean, two rounds
set -uo pipefail
root=$PWD
pack=$root/.gpupack-l2
res=$OUT/l2
mkdir -p "$res/bench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
export SAW_JAVA_OPTS=-Xmx24g
d=/tmp/pack-main; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"
python3 - "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar" "$root/.varjar/main.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import sys, zipfile
name = "saw/kernels/saw_attention.fatbin"
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[3], "w", zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        if info.filename != name: dst.writestr(info, src.read(info.filename))
    dst.write(sys.argv[2], name)
PY
cp "$pack/saw" "$d/"; chmod +x "$d/saw"
ln -s "$pack" /tmp/pack-lean
el "gate"
SAW_NSA_FWD=block timeout 60 "$pack/saw" verify --backend gpu --pass fwd,bwd --nsa random --nsa-block 64 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 4096 > /tmp/g.log 2>&1
grc=$?; echo "gate rc=$grc $(grep -E '^(PASS|FAIL)' /tmp/g.log)"; cp /tmp/g.log "$res/gate.log"
if [[ $grc == 0 ]]; then
  el "verify (quick matrix)"
  ( OUT=$res NSA_PARTS="verify" NSA_VERIFY=quick timeout -k 5 150 bash "$pack/nsa-run.sh" > "$res/nsa-verify.txt" 2>&1 )
  grep -E "^(ok|FAIL)|verify matrix|failed" "$res/nsa-verify.txt" | cut -c1-200
  el "sanitizers"
  for tool in memcheck racecheck; do
    for c in "--nsa random --seq 3000 --dtype bf16 --nsa-block 64 --nsa-s 8 --heads 32 --kv-heads 8 --head-dim 128" \
             "--nsa random --seq 1900 --dtype fp16 --nsa-block 128 --nsa-s 6 --heads 24 --kv-heads 1 --head-dim 64 --softcap 30"; do
      read -ra a <<<"$c"
      o=$(SAW_NSA_FWD=block timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -cp "$pack/lib/*" \
          saw.app.Main verify "${a[@]}" --backend gpu --pass fwd,bwd 2>&1); rc=$?
      echo "== $tool $c" >> "$res/sanitizer.log"; echo "$o" | tail -30 >> "$res/sanitizer.log"
      echo "$tool rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1) :: $c"
    done
  done
  el "timing"
  rows=(
    "g16-fwd-block|fwd|block|--seq 32768 --heads 64 --kv-heads 4 --head-dim 128"
    "g16-fwd-warp|fwd|warp|--seq 32768 --heads 64 --kv-heads 4 --head-dim 128"
    "g8-fwd-block|fwd|block|--seq 32768 --heads 32 --kv-heads 4 --head-dim 128"
    "g4-fwd-block|fwd|block|--seq 32768 --heads 16 --kv-heads 4 --head-dim 128"
    "g16d64-fwd-block|fwd|block|--seq 32768 --heads 64 --kv-heads 4 --head-dim 64"
    "g16-64k-fwd-block|fwd|block|--seq 65536 --heads 64 --kv-heads 4 --head-dim 128"
    "g16-bwd|bwd|auto|--seq 32768 --heads 64 --kv-heads 4 --head-dim 128"
    "g4-bwd|bwd|auto|--seq 32768 --heads 16 --kv-heads 4 --head-dim 128")
  for r in 1 2; do
    if [[ $r == 2 ]]; then vs="lean main"; else vs="main lean"; fi
    for row in "${rows[@]}"; do
      IFS='|' read -r tag pass order c <<<"$row"; read -ra a <<<"$c"
      for v in $vs; do
        SAW_NSA_FWD=$order timeout 100 /tmp/pack-$v/saw bench --nsa random "${a[@]}" --nsa-s 16 --nsa-block 64 --dtype bf16 \
          --backend gpu --pass $pass --reps 10 --warmup 3 --out "$res/bench/$tag-r$r-$v.jsonl" >> "$res/bench.log" 2>&1
      done
    done
  done
  python3 - "$res/bench" <<'PY' | tee "$res/table.txt"
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [json.loads(l) for l in open(f) if l.strip()]
    ok = [r for r in ok if "median_ms" in r]
    rows[tag][var] = (ok[-1]["median_ms"], ok[-1]["useful_tflops"], ok[-1].get("kernel"), ok[-1].get("pass")) if ok else None
for tag in sorted(rows):
    v = rows[tag]; o = v.get("main")
    print(f"{tag:24s}", " ".join(f"{k} {v[k][0]:.3f} ms {v[k][1]:6.1f} {o[0] / v[k][0]:.3f}x" for k in ("main", "lean") if v.get(k) and o),
          "|", v.get("lean", (0, 0, "?", "?"))[2], v.get("lean", (0, 0, "?", "?"))[3])
PY
else
  echo "gate failed"; tail -30 /tmp/g.log
fi
el done
cd "$OUT" && tar czf l2-logs.tgz l2 && rm -rf l2/bench l2/nsa l2/bench.log l2/gate.log && ls -la "$OUT" "$OUT/l2"
