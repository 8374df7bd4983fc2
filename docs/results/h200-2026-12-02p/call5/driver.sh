#!/usr/bin/env bash
# Session 16, call 5: the early mask loads (`mea`, .varjar/mea.fatbin = the committed kernels of branch mask-early)
# also changed the PTX of the forward families that keep loading the bits in the softmax (their masking now goes
# through maskIndex / maskWords): verify those on masks with PARTIAL tiles - wgmma and wgmma-overlap at 128x128, the
# 64-row kernels at 64x64 (D = 64 / 128, ws and pp) and the 64-row D = 256 forward (-Dsaw.kernel.fwd256=wgmma).
set -uo pipefail
root=$PWD
pack=$root/.gpupack-p1
res=$OUT/p5
mkdir -p "$res"
exec > >(tee "$res/driver.log") 2>&1
d=/tmp/pack-mea; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
rm -f "$d"/lib/saw-engine-*.jar
python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/mea.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
vfail=0
verify() { # OPTS ARGS...
  local opts=$1; shift
  local out rc
  out=$(SAW_JAVA_OPTS="-Xmx48g $opts" timeout -k 5 60 /tmp/pack-mea/saw verify "$@" --backend gpu --pass fwd 2>&1); rc=$?
  { echo "== verify mea [$opts] $*"; echo "$out"; echo "rc=$rc"; } >> "$res/verify.log"
  [[ $rc == 0 ]] || vfail=$((vfail + 1))
  echo "verify mea rc=$rc [$opts] $* :: $(echo "$out" | grep -E '^(kernel|PASS|FAIL)' | head -2 | tr '\n' ' ') $(echo "$out" | awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}')"
}
for fam in wgmma wgmma-overlap; do
  for D in 64 128; do
    verify "-Dsaw.kernel.fwd=$fam" 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --heads 6 --kv-heads 3 --dtype fp16 --sinks --head-dim $D --block 128x128 --scale 0.7
    verify "-Dsaw.kernel.fwd=$fam" 'random(128,128,30,3)' --seq 2048 --heads 4 --kv-heads 2 --head-dim $D --dtype bf16 --softcap 30 --block 128x128
  done
done
for fam in wgmma-pp wgmma-ws; do
  for D in 64 128; do
    verify "-Dsaw.kernel.fwd=$fam" 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --heads 6 --kv-heads 3 --dtype bf16 --sinks --head-dim $D --block 64x64
  done
  verify "-Dsaw.kernel.fwd=$fam -Dsaw.kernel.fwd256=wgmma" 'and(causal,docs(700,600,500,100))' --seq 1900 --heads 2 --head-dim 256 --block 64x64 --dtype fp16 --softcap 50
  verify "-Dsaw.kernel.fwd=$fam -Dsaw.kernel.fwd256=wgmma" 'window(200)' --seq 1500 --heads 4 --kv-heads 2 --head-dim 256 --block 64x64 --dtype bf16 --sinks
done
echo "verify failures: $vfail"
