#!/usr/bin/env bash
# Builds a self-contained folder for a GPU machine that has no Java: a jlink'd runtime, the headless jars (no
# JavaFX), a `saw` launcher and the GPU scripts (verify matrix, timing table). Usage:
#   bench/gpu-pack.sh TARGET_DIR        (builds with Maven first; MAVEN_ARGS=-o to build offline)
# SAW_PACK_SLIM=1 leaves out what a GPU machine reached by its own session (not by `saw --remote`) never uses, so that
# the pack fits beside a checkout in a 64 MiB carry: the SSH client jar (the remote module's, for the desktop side),
# the runtime's legal texts, CA certificates and jrt-fs.jar, and libjvm's unneeded symbols (about 6 MB in all).
# SAW_PACK_CHARTS=1 adds what `saw chart` needs (java.desktop, JFreeChart, JFreeSVG and the chart classes, run
# headless): about 16 MB more, 68 MB in all.
# Then on the GPU machine:  TARGET_DIR/saw env ; TARGET_DIR/run-matrix.sh ; TARGET_DIR/run-timing.sh
# For remote runs from the desktop (`saw bench ... --remote HOST`, the window's remote targets) build it beside the
# jar: bench/gpu-pack.sh app/target/gpupack  (saw uploads that folder; it needs a JDK's jlink, so it is built once
# on a Linux x86-64 build machine and shipped with saw.jar, not by every user).
set -euo pipefail
target=${1:?usage: bench/gpu-pack.sh TARGET_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cp_file=$(mktemp)
# one reactor run: the app's classpath needs the engine's test-jar packaged in the same build
mvn -q -B ${MAVEN_ARGS:-} -pl app -am package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=runtime >/dev/null
engine_jar=$(ls engine/target/saw-engine-*.jar | grep -v -- '-tests\.jar$')
# grep reads the whole listing: with -q it would stop at the match, and unzip killed by the closed pipe fails pipefail
if ! unzip -l "$engine_jar" | grep saw/kernels/saw_attention.fatbin >/dev/null; then
  echo "gpu-pack: the engine jar holds no CUDA kernels (was nvcc missing?); the pack would be useless" >&2
  exit 1
fi
rm -rf "$target"
mkdir -p "$target/lib"
charts=${SAW_PACK_CHARTS:-}
modules=java.base,jdk.unsupported,java.logging${charts:+,java.desktop}
jlink --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=2 --output "$target/runtime"
cp "$engine_jar" "$target/lib/"
ls presets/target/saw-presets-*.jar remote/target/saw-remote-*.jar app/target/saw-app-*.jar | grep -v -- '-tests\.jar$' | xargs -I{} cp {} "$target/lib/"
# runtime dependencies of engine + app, minus JavaFX (and, unless SAW_PACK_CHARTS, the chart libraries)
libs='picocli|jackson-[a-z]+|jcuda|jcuda-natives|jsch|jna'${charts:+'|jfreechart|org\.jfree\.svg'}
[[ -n $charts ]] && ls ui/target/saw-ui-*.jar | grep -v -- '-tests\.jar$' | xargs -I{} cp {} "$target/lib/"
tr ':' '\n' <"$cp_file" | grep -E "/($libs)-[^/]*\.jar\$" \
  | grep -v -- '-natives-[0-9.]*-(windows|apple|linux-(arm|ppc))' | while read -r jar; do cp "$jar" "$target/lib/"; done
rm "$cp_file"
# saw loads its prebuilt kernels through the driver and never uses JCuda's NVPTX compiler binding, whose native library
# is 24 MB of the natives jar (the copy in the pack, not the one in the Maven repository); the H200 runs of
# 2026-12-01 (fourth session) ran with it removed
natives=$(ls "$target"/lib/jcuda-natives-*-linux-x86_64.jar 2>/dev/null || true)
if [[ -n $natives ]] && command -v zip >/dev/null; then zip -q -d "$natives" 'lib/libJNvPTXCompiler-*' >/dev/null || true; fi
# JNA carries its native dispatch library for every platform it supports; the pack runs on Linux x86-64 only
jna=$(ls "$target"/lib/jna-*.jar 2>/dev/null || true)
if [[ -n $jna ]] && command -v zip >/dev/null; then
  unzip -Z1 "$jna" | grep -E '^com/sun/jna/[^/]+/[^/]*jnidispatch[^/]*$' | grep -v '^com/sun/jna/linux-x86-64/' \
    | xargs -r zip -q -d "$jna" >/dev/null || true
fi
if [[ -n ${SAW_PACK_SLIM:-} ]]; then
  rm -f "$target"/lib/jsch-*.jar "$target/runtime/lib/jrt-fs.jar" "$target/runtime/lib/security/cacerts" \
    "$target/runtime/lib/security/public_suffix_list.dat"
  rm -rf "$target/runtime/legal"
  if command -v strip >/dev/null; then strip --strip-unneeded "$target/runtime/lib/server/libjvm.so"; fi
fi
cat >"$target/saw" <<'LAUNCH'
#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
export SAW_GIT_COMMIT=${SAW_GIT_COMMIT:-GIT_COMMIT_AT_PACK}
exec "$here/runtime/bin/java" -Djava.awt.headless=true ${SAW_JAVA_OPTS:-} -cp "$here/lib/*" saw.app.Main "$@"
LAUNCH
# results files name the commit they were measured at (the pack carries no git checkout)
commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if ! git -C "$root" diff --quiet HEAD 2>/dev/null; then commit="$commit-dirty"; fi
sed -i "s/GIT_COMMIT_AT_PACK/$commit/" "$target/saw"
chmod +x "$target/saw"
cp bench/gpu/*.sh bench/gpu/*.py bench/gpu-faults.sh "$target/"
du -sh "$target"
# `saw ... --remote` uploads this folder as one gzipped tar and refuses one over 64 MiB (saw.remote.Pack)
packed=$(tar -czf - -C "$target" . | wc -c)
echo "gpu-pack: $((packed >> 20)) MiB as the remote upload (limit 64 MiB)"
