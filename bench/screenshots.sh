#!/usr/bin/env bash
# Captures the real workbench window under Xvfb into docs/img/ (the README shows them) and prints the window
# timings that docs/benchmarks.md ("Window") records: cold start to a usable window, grid redraws from 1K to 1M
# tokens, and an edit at 128K tokens to its new grid.
#
#   bench/screenshots.sh [OUT_DIR]      (default docs/img; needs Xvfb and GTK 3, installed here when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/img}"

if ! command -v Xvfb >/dev/null || ! ldconfig -p | grep libgtk-3.so.0 >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq xvfb libgtk-3-0 libxtst6 >/dev/null
    else
        echo "screenshots.sh needs Xvfb and GTK 3 (Debian: apt-get install xvfb libgtk-3-0)" >&2
        exit 2
    fi
fi

mvn -q -B -DskipTests package
cp="app/target/saw.jar:tests/target/test-classes"

display=":$((90 + RANDOM % 9))"
Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true' EXIT
sleep 1
export DISPLAY="$display"
quiet() { grep -v -e 'Unsupported JavaFX configuration' -e 'PlatformImpl startup' || true; }

mkdir -p "$out"
java -cp "$cp" saw.tests.Screenshots "$out" 2>&1 | quiet
# the remote targets dialog and a remote sweep, against the test suite's in-process SSH server
remote_cp=$(mktemp)
mvn -q -B -DskipTests -pl tests -am package dependency:build-classpath -Dmdep.outputFile="$remote_cp" -Dmdep.includeScope=test >/dev/null
java -cp "tests/target/test-classes:$(cat "$remote_cp")" saw.tests.RemoteScreenshots "$out" 2>&1 | quiet
rm -f "$remote_cp"

echo
echo "Cold start to a usable window (java -jar app/target/saw.jar, fresh session folder each time):"
for i in 1 2 3 4 5 6 7; do
    state="$(mktemp -d)"
    java -Dsaw.startupTiming=exit -Dsaw.stateDir="$state" -jar app/target/saw.jar 2>&1 | quiet | grep 'usable'
    rm -rf "$state"
done
echo
java -cp "$cp" saw.tests.WindowTimings 2>&1 | quiet
echo
echo "machine: $(nproc) cores, $(uname -sr), $(java -version 2>&1 | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
