#!/usr/bin/env bash
# One GPU session: environment, SASS summary, the verify matrix with compute-sanitizer, then the timing table.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export SAW_JAVA_OPTS=${SAW_JAVA_OPTS:--Xmx16g}
"$here/saw" env | cut -c1-300
fb=$(mktemp -d)
python3 - "$here" "$fb" <<'PY'
import glob, sys, zipfile
jar = [j for j in glob.glob(sys.argv[1] + "/lib/saw-engine-*.jar") if not j.endswith("-tests.jar")][0]
zipfile.ZipFile(jar).extract("saw/kernels/saw_attention.fatbin", sys.argv[2])
PY
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass -arch sm_90a "$fb/saw/kernels/saw_attention.fatbin" >"$fb/sass.txt" 2>&1
  echo "SASS sm_90a (bf16 kernels): function HMMA LDSM local-memory(LDL+STL)"
  awk '/Function :/{f=$3} /HMMA/{h[f]++} /LDSM/{s[f]++} /LDL|STL/{l[f]++} END{for (k in h) print k, h[k], s[k]+0, l[k]+0}' \
    "$fb/sass.txt" | grep bf16 | sort
  cp "$fb/sass.txt" "${OUT:-$here}/sass.txt" 2>/dev/null; gzip -f "${OUT:-$here}/sass.txt" 2>/dev/null
fi
"$here/run-matrix.sh"
"$here/run-timing.sh" "$@" | tail -40
