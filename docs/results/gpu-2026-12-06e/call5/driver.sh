#!/usr/bin/env bash
# Thirty-first session, call 5 (call 4's start failed; the plain kind had turned to the H200). On an H200: issue 14's
# side by side with fla-core 0.5.2 on every published shape with the landed build (call 3's v3 fatbin and
# v-engine.jar), the machine issue 14's targets name; then, while the call lasts, call 4's A / W rounds. On an H100
# (where call 3 already ran the side by side): call 4's driver as written.
#   bash docs/results/gpu-2026-12-06e/call5/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash docs/results/gpu-2026-12-06e/call4/driver.sh
fi
. bench/gpu/ab-lib.sh
ab_init c5
for f in v3 w; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/v3.fatbin nsa-kv-staged .gpupack/var/v-engine.jar
ab_pack /tmp/pw /tmp/w.fatbin nsa-warp-l1 .gpupack/var/v-engine.jar
cp bench/gpu/nsa-run.sh /tmp/pa/nsa-run.sh
python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1
ab_el "side by side with fla"
OUT=$ab_res/fla PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=all NSA_COMPARE_ORDERS="warp block" \
  NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=190 NSA_COMPARE_TIMEOUT=240 timeout -k 5 250 /tmp/pa/nsa-run.sh \
  > "$ab_res/fla.out" 2>&1
echo "rc=$?"; sed -n '/== summary/,$p' "$ab_res/fla.out" | tail -16
ab_save
ab_el "A / W"
rows=("random 1 65536 64 128 5" "random 1 32768 64 128 10" "scored 1 32768 64 128 10")
for rd in 1 2; do
  for row in "${rows[@]}"; do
    read -r sel b t hq d reps <<<"$row"
    if (( rd == 2 )); then order="W A"; else order="A W"; fi
    for v in $order; do
      SAW_NSA_FWD=warp ab_nsa_time "/tmp/p${v,,}" "$v" "$rd" fwd "$sel" "$b" "$t" "$hq" "$d" "$reps"
    done
  done
  ab_save
done
ab_el "synccheck on the staged variant"
ab_san /tmp/pa kvs64k synccheck --pass fwd,bwd --nsa random --nsa-block 64 --nsa-s 2 --heads 1 --kv-heads 1 \
  --head-dim 128 --dtype bf16 --seq 65536
ab_save
ab_el done
