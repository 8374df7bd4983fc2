#!/usr/bin/env bash
# Call 4 (twenty-ninth session): the NSA backward reads LSE and Dsum token-major (branch nsa-rowstats): an item's rows
# are the G heads of each of its tokens, and with [B, H, T] statistics each row's LSE and Dsum were two 32-byte sectors
# of their own (64 bytes of L2 traffic for 8 used, about 4 GB at T = 64K); nsa_pre_* writes both in [B, T, H] order
# instead of bwd_pre_*. A = main 0b94461, B = nsa-rowstats. B's checks (quick NSA verify, the NSA sanitizer cases),
# two timing rounds on issue 14's backward shapes, then B side by side with fla-core 0.5.2 on the final shapes.
#   bash docs/results/gpu-2026-12-06c/call4/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d4
for f in old t3; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ls -l /tmp/*.fatbin
ab_pack /tmp/pa /tmp/old.fatbin main-0b94461 .gpupack/var/old-engine.jar
ab_pack /tmp/pb /tmp/t3.fatbin nsa-rowstats
declare -A packs=([A]=/tmp/pa [B]=/tmp/pb)
ab_el "checks of B"
OUT=$ab_res/check NSA_PARTS="verify sanitizer" NSA_VERIFY=quick NSA_SAN_TOOLS="memcheck racecheck" \
  timeout -k 5 240 /tmp/pb/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL|compute-sanitizer' "$ab_res/verify.out" | head -30
row() { # BUILD B T HQ D REPS
  local v=$1 b=$2 t=$3 hq=$4 d=$5 reps=$6 out="$ab_res/ab/$1-b$2-t$3-hq$4-d$5-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random --batch "$b" --seq "$t" \
    --heads "$hq" --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 \
    --reps "$reps" --out "$out" > "$out.log" 2>&1
  printf 'round %s %-3s bwd B=%s T=%-6s HQ=%-3s D=%-3s %s\n' "$round" "$v" "$b" "$t" "$hq" "$d" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "NSA timing"
for round in 1 2; do
  for cfg in "1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "4 16384 64 128 5" \
             "1 32768 64 64 10" "1 32768 32 128 10" "1 32768 16 128 10"; do
    read -r b t hq d reps <<<"$cfg"
    if [[ $round == 1 ]]; then order="A B"; else order="B A"; fi
    for v in $order; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
  done
  ab_el "round $round done"
done
ab_save
if [[ -d .whl ]]; then
  ab_el "B against fla-core 0.5.2 (final shapes)"
  python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1
  OUT=$ab_res/fla PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,65536,64,4,128,64,16;2,65536,64,4,128,64,16;1,32768,64,4,128,64,16" NSA_COMPARE_ORDERS=warp \
    NSA_FAMILIES=wgmma NSA_COMPARE_TIMEOUT=150 timeout -k 5 170 /tmp/pb/nsa-run.sh > "$ab_res/fla.out" 2>&1
  echo "rc=$?"; tail -n 25 "$ab_res/fla.out"
fi
ab_save
ab_el done
