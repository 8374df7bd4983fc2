#!/usr/bin/env bash
# Builds a self-contained folder for a GPU machine that has no Java: a jlink'd runtime, the headless jars (no
# JavaFX), a `saw` launcher and the GPU scripts (verify matrix, timing table). Usage:
#   bench/gpu-pack.sh TARGET_DIR        (builds with Maven first; SAW_PACK_SKIP_BUILD=1 to reuse target/)
# Then on the GPU machine:  TARGET_DIR/saw env ; TARGET_DIR/run-matrix.sh ; TARGET_DIR/run-timing.sh
set -euo pipefail
target=${1:?usage: bench/gpu-pack.sh TARGET_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [[ "${SAW_PACK_SKIP_BUILD:-0}" != 1 ]]; then
  mvn -q -B -pl app -am package -DskipTests
fi
if ! unzip -l engine/target/saw-engine-*.jar | grep -q saw/kernels/saw_attention.fatbin; then
  echo "gpu-pack: the engine jar holds no CUDA kernels (was nvcc missing?); the pack would be useless" >&2
  exit 1
fi
rm -rf "$target"
mkdir -p "$target/lib"
jlink --add-modules java.base,jdk.unsupported,java.logging --strip-debug --no-man-pages --no-header-files \
  --compress=2 --output "$target/runtime"
cp engine/target/saw-engine-*.jar presets/target/saw-presets-*.jar app/target/saw-app-*.jar "$target/lib/"
# runtime dependencies of engine + app, minus JavaFX and the chart libraries the CLI commands here do not need
mvn -q -B -o -pl app dependency:build-classpath -Dmdep.outputFile="$target/cp.txt" -Dmdep.includeScope=runtime >/dev/null
tr ':' '\n' <"$target/cp.txt" | grep -E '/(picocli|jackson-[a-z]+|jcuda|jcuda-natives)-[^/]*\.jar$' \
  | grep -v -- '-natives-[0-9.]*-(windows|apple|linux-(arm|ppc))' | while read -r jar; do cp "$jar" "$target/lib/"; done
rm "$target/cp.txt"
cat >"$target/saw" <<'LAUNCH'
#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/runtime/bin/java" ${SAW_JAVA_OPTS:-} -cp "$here/lib/*" saw.app.Main "$@"
LAUNCH
chmod +x "$target/saw"
cp bench/gpu/*.sh "$target/"
du -sh "$target"
