#!/usr/bin/env bash
# Twenty-third session, call 5: the landed build (c36338d: wgmma descriptors by adds in the D = 64 kernels only; every
# other entry's PTX is main's) against main 6fbebea. Its dense D = 64 entries are call 4's pack G (same PTX), so this call
# times what call 4 did not: the NSA warpgroup backward at D = 64 (its PTX changed with BwdStepParts), A/L in three
# rounds alternating; then issue 12's rows with cuDNN on the landed build (frontier-table.sh). Pack A: main's sm_90a
# fatbin (.gpupack/var/main90.fatbin); pack L: .gpupack/var/land.fatbin. Both:
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -gencode=arch=compute_90a,code=sm_90a -o X.fatbin saw_attention.cu
set -uo pipefail
root=$PWD
res=/tmp/c5
mkdir -p "$res/nsa" "$res/verify"
exec > >(tee "$OUT/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
pack_logs() { tar czf "$OUT/c5.tgz" -C /tmp c5; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
put_fatbin() { # SRC_JAR FATBIN DST_JAR
  python3 - "$@" <<'PY'
import sys, zipfile
src, fat, dst = sys.argv[1:]
blob = open(fat, "rb").read()
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for i in a.infolist():
        b.writestr(i, blob if i.filename == "saw/kernels/saw_attention.fatbin" else a.read(i.filename))
print("engine jar written:", dst)
PY
}
pa=/tmp/pa; pl=/tmp/pl
for p in "$pa" "$pl"; do
  mkdir -p "$p/lib"; ln -sfn "$root/.gpupack/runtime" "$p/runtime"; cp "$root"/.gpupack/*.sh "$p/"; cp "$root"/.gpupack/lib/*.jar "$p/lib/"
done
sed 's/6fbebea27a5d/main-6fbebea/' "$root/.gpupack/saw" > "$pa/saw"
sed 's/6fbebea27a5d/c36338d/' "$root/.gpupack/saw" > "$pl/saw"
chmod +x "$pa/saw" "$pl/saw"
put_fatbin "$root/.gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar" "$root/.gpupack/var/main90.fatbin" "$pa/lib/saw-engine-0.1.0-SNAPSHOT.jar"
put_fatbin "$root/.gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar" "$root/.gpupack/var/land.fatbin" "$pl/lib/saw-engine-0.1.0-SNAPSHOT.jar"

el "1. verify on pack L (NSA at D = 64, dense D = 64 and 128)"
verify() { # NAME ARGS...
  local name=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx8g" timeout -k 5 120 "$pl/saw" verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify $name $*"; echo "$out"; echo "rc=$rc"; } > "$res/verify/$name.log"
  echo "verify $name rc=$rc :: $(echo "$out" | awk '$1=="O"||$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}')"
}
vp=()
if [[ -z ${SKIP_VERIFY:-} ]]; then
verify nsa-d64-b64 --nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 64 --dtype bf16 --seq 3000 --pass fwd,bwd & vp+=($!)
verify nsa-d64-b128-fp16-cap --nsa random --nsa-block 128 --nsa-s 8 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16 --softcap 30 --seq 4100 --pass fwd,bwd & vp+=($!)
verify dense-d64 'and(causal,docs(700,1500,1200,500,3000,77))' --seq 6977 --batch 2 --heads 16 --kv-heads 4 --head-dim 64 --dtype bf16 --rows 24 --block 128x128 --pass fwd,bwd & vp+=($!)
verify dense-d128 causal --seq 5000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --rows 24 --block 128x128 --pass fwd,bwd & vp+=($!)
fi
# waits for these pids only: a bare `wait` also waits for the tee behind `exec > >(...)`, which never ends (the first
# run of this driver hung there until the call's limit)
for p in "${vp[@]}"; do wait "$p"; done
pack_logs

el "2. NSA at D = 64, A/L"
nsab() { # PACK TAG NAME ROUND ARGS...
  local p=$1 tag=$2 name=$3 r=$4; shift 4
  timeout -k 5 120 "$p/saw" bench --nsa random --backend gpu --pass fwd,bwd --warmup 3 --reps 10 --dtype bf16 \
    --out "$res/nsa/$tag-$name-r$r.jsonl" "$@" >> "$res/nsa/bench.log" 2>&1 || echo "bench $tag $name r$r rc=$?"
}
shapes=("g16-b64|--seq 32768 --heads 64 --kv-heads 4 --head-dim 64 --nsa-block 64 --nsa-s 16"
        "g4-b64|--seq 32768 --heads 16 --kv-heads 4 --head-dim 64 --nsa-block 64 --nsa-s 16"
        "g16-b128|--seq 32768 --heads 64 --kv-heads 4 --head-dim 64 --nsa-block 128 --nsa-s 8")
for r in $(seq 1 "${NSA_ROUNDS:-3}"); do
  for row in "${shapes[@]}"; do
    IFS='|' read -r name args <<<"$row"
    # shellcheck disable=SC2086
    if (( r % 2 )); then nsab "$pa" A "$name" $r $args; nsab "$pl" L "$name" $r $args
    else nsab "$pl" L "$name" $r $args; nsab "$pa" A "$name" $r $args; fi
  done
  el "round $r done"
  (( $(date +%s) - t0 < 200 )) || break
done
python3 - "$res/nsa" <<'PY' | tee "$res/nsa/table.txt"
import glob, json, os, re, sys
d = sys.argv[1]
t = {}
for f in glob.glob(os.path.join(d, "*.jsonl")):
    tag, name, r = re.match(r"([AL])-(.*)-r(\d+)\.jsonl", os.path.basename(f)).groups()
    for line in open(f):
        j = json.loads(line)
        if j.get("status") == "ok" and j.get("pass") in ("fwd", "bwd"):
            t.setdefault((name, j["pass"]), {}).setdefault(int(r), {})[tag] = (j["useful_tflops"], j.get("kernel", ""))
print(f"{'shape':10} {'pass':4} {'round':>5} {'A ms-rate':>9} {'L':>8} {'L/A':>6}  kernel")
for key in sorted(t):
    ratios = []
    for r in sorted(t[key]):
        x = t[key][r]
        if "A" in x and "L" in x:
            ratios.append(x["L"][0] / x["A"][0])
            print(f"{key[0]:10} {key[1]:4} {r:>5} {x['A'][0]:9.1f} {x['L'][0]:8.1f} {ratios[-1]:6.3f}  {x['L'][1]}")
    if ratios:
        print(f"{key[0]:10} {key[1]:4} {'all':>5} {'':9} {'':8} {min(ratios):.3f}-{max(ratios):.3f}")
PY
pack_logs

el "3. frontier-table.sh on pack L"
if [[ -n ${SKIP_FRONTIER:-} ]]; then el "skipped"; exit 0; fi
OUT=$res/ftL "$pl/frontier-table.sh" > /dev/null 2>&1; cat "$res/ftL/frontier/table.txt" 2>/dev/null
el "frontier L done"
pack_logs
