#!/usr/bin/env bash
# Twenty-second session, call 9 (call 7 again with the classes of d9ab9e4: JCudaNatives writing through AtomicFiles): JVMs starting together on a fresh machine (/tmp without JCuda's library), the pack's
# engine jar (af9764a: JCuda writes its library into /tmp in place) against the same jar with main d9ab9e4's JCudaNatives,
# JCudaProbe and JCudaDriverCalls classes (a whole copy renamed into place first; nothing else differs). Per round the library is removed from /tmp, then 12
# `saw verify` processes (GPU backend, a small causal case forward + backward) start at once; crashes (SIGBUS in the
# loader) and failed verifies are counted. Three rounds each, alternating. Work files in /tmp/c9 -> $OUT/c9.tgz.
set -uo pipefail
root=$PWD
po=$root/.gpupack
pn=/tmp/pn
res=/tmp/c9
mkdir -p "$res" "$pn/lib"
exec > >(tee "$OUT/driver.log") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ln -s "$po/runtime" "$pn/runtime"
cp "$po"/lib/*.jar "$pn/lib/"
# the new jar: the pack's engine jar with main d9ab9e4's three changed classes (carried in .gpupack/var/classes)
python3 - "$po/lib/saw-engine-0.1.0-SNAPSHOT.jar" "$po/var/classes" "$pn/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import os, sys, zipfile
src, classes, dst = sys.argv[1:]
new = {}
for d, _, files in os.walk(classes):
    for f in files:
        full = os.path.join(d, f)
        new[os.path.relpath(full, classes)] = open(full, "rb").read()
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for i in a.infolist():
        b.writestr(i, new.pop(i.filename, None) or a.read(i.filename))
    for name, data in new.items():
        b.writestr(name, data)
print("new engine jar: replaced or added", sorted(os.listdir(os.path.join(classes, "saw/engine/gpu"))))
PY
sed 's/af9764a/d9ab9e4/' "$po/saw" > "$pn/saw"; chmod +x "$pn/saw"
storm() { # PACK TAG ROUND
  local p=$1 tag=$2 r=$3 i pids=() crashed=0 failed=0
  rm -f /tmp/libJCudaDriver-*.so
  mkdir -p "$res/$tag-r$r"
  for i in $(seq 1 12); do
    ( cd "$res/$tag-r$r" && SAW_JAVA_OPTS="-Xmx2g -XX:ErrorFile=$res/$tag-r$r/hs_err_$i.log" timeout -k 5 120 "$p/saw" verify causal \
        --seq 512 --heads 4 --kv-heads 2 --head-dim 64 --dtype bf16 --backend gpu --block 128x128 --pass fwd,bwd \
        > "$res/$tag-r$r/run$i.log" 2>&1; echo "rc=$?" >> "$res/$tag-r$r/run$i.log" ) &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  crashed=$(grep -l "SIGBUS\|A fatal error has been detected" "$res/$tag-r$r"/run*.log 2>/dev/null | wc -l)
  failed=$(grep -L "^rc=0" "$res/$tag-r$r"/run*.log | wc -l)
  echo "$tag round $r: 12 started, $failed failed, $crashed crashed in the JVM ($(ls -la /tmp/libJCudaDriver-*.so 2>/dev/null | awk '{print $1, $5}'))"
}
for r in 1 2 3; do
  if (( r % 2 )); then storm "$po" old "$r"; storm "$pn" new "$r"; else storm "$pn" new "$r"; storm "$po" old "$r"; fi
done
grep -h "Problematic frame" -A1 "$res"/*/run*.log 2>/dev/null | sort | uniq -c | head
tar czf "$OUT/c9.tgz" -C /tmp c9
