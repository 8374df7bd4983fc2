#!/usr/bin/env bash
# Forty-ninth session, prepared (no device was lent): builds what the drivers beside this script carry, from a clean
# checkout of main at or after the commit that added this folder, with nvcc and Maven (online for a first build):
#   bash docs/results/cpu-2026-12-08/next/prepare.sh
# It makes .gpupack (main's slim pack, if missing: about 4 minutes), main's and the experiment's sm_90a fatbins
# (dq-colend.patch applied in a worktree: about 2.5 minutes each, in parallel), the experiment's engine jar, and carries
# them in .gpc/colend.tar.xz (carry [".gpc"]; the drivers unpack it). Keep .gpupack/ and .gpc/ out of git:
#   mkdir -p .git/info && printf '.gpupack/\n.gpc/\n' >> .git/info/exclude
set -euo pipefail
here=docs/results/cpu-2026-12-08/next
root=$PWD
build=/tmp/colend-build
rm -rf "$build" && mkdir -p "$build" .gpc
[[ -x .gpupack/saw ]] || SAW_PACK_SLIM=1 bash bench/gpu-pack.sh .gpupack
nv=(nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -gencode=arch=compute_90a,code=sm_90a)
git worktree remove --force /tmp/colend-wt 2>/dev/null || true
git worktree add --detach /tmp/colend-wt HEAD
git -C /tmp/colend-wt apply "$root/$here/dq-colend.patch"
"${nv[@]}" -o "$build/main.fatbin" engine/src/main/cuda/saw_attention.cu &
main_pid=$!
(cd /tmp/colend-wt/engine/src/main/cuda && "${nv[@]}" -o "$build/colend.fatbin" saw_attention.cu)
wait "$main_pid"
# the experiment's host code (its engine jar; the fatbin inside is replaced by ab_pack)
(cd /tmp/colend-wt && mvn -q -B -DskipTests package -pl engine -am)
# both engine jars without their fatbins (ab_pack puts one in), to stay inside the 64 MiB a call carries
strip_fatbin() { # SRC DST
  python3 - "$1" "$2" <<'PY'
import sys, zipfile
src, dst = sys.argv[1:]
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for i in a.infolist():
        b.writestr(i, b"" if i.filename == "saw/kernels/saw_attention.fatbin" else a.read(i.filename))
PY
}
strip_fatbin /tmp/colend-wt/engine/target/saw-engine-0.1.0-SNAPSHOT.jar "$build/colend-engine.jar"
strip_fatbin .gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar "$build/main-engine.jar"
git worktree remove --force /tmp/colend-wt
(cd "$build" && sha256sum ./*.fatbin ./*.jar | tee SHA256SUMS)
tar cf - -C "$build" . | xz -9e -T2 > .gpc/colend.tar.xz
tar cf - .gpupack | xz -9e -T2 > .gpc/pack.tar.xz
ls -la .gpc
