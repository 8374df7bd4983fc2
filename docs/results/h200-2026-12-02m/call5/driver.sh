#!/usr/bin/env bash
# Session 13, call 5: issue 12's rows on main 0b359cf (the persistent forward with rows handed through the ring and
# 8-byte output stores, the 64-row Hopper forward at D = 64 / 128), with cuDNN in the same call: bench/gpu/frontier-table.sh.
# Pack: .gpupack-m1 (app, presets, remote jars, the script) + .varjar/engine-m3-nofatbin.jar + .varjar/nl.fatbin
# (main's CUDA sources, sm_90a).
set -uo pipefail
root=$PWD
pack=$root/.gpupack-m1
mkdir -p "$OUT/m5"
exec > >(tee "$OUT/m5/driver.log") 2>&1
python3 - "$root/.varjar/engine-m3-nofatbin.jar" "$root/.varjar/nl.fatbin" "$pack/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
export SAW_JAVA_OPTS=-Xmx48g
OUT=$OUT/m5 timeout 560 "$pack/frontier-table.sh"
cd "$OUT" && tar czf m5-logs.tgz m5 && rm -rf m5/frontier/results m5/frontier/specs && ls -la "$OUT/m5" "$OUT/m5/frontier"
