#!/usr/bin/env bash
# Call 6 (twenty-ninth session): call 5's profile puts the NSA backward's memory side at 85% of the SM-to-L2 crossbar
# (L2 Xbar2lts cycles active), and the largest thing crossing it is the fp32 dQ adds (512 bytes per gathered row).
# A bound, not a candidate: main's kernels with the adds of dQ's second 64-column half left out (H1, half.diff) and
# with no dQ adds at all (H0, none.diff), both giving wrong dQ, timed against main (A) at T = 64K, 32K and 8K; the
# gain H1 shows is about what fp16 / bf16 dQ accumulators (half the bytes) could give at most.
#   bash docs/results/gpu-2026-12-06c/call6/driver.sh > /dev/null 2>&1; tail -c 6000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d6
for f in old half none; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/old.fatbin main-0b94461 .gpupack/var/old-engine.jar
ab_pack /tmp/ph1 /tmp/half.fatbin no-dq-half1 .gpupack/var/old-engine.jar
ab_pack /tmp/ph0 /tmp/none.fatbin no-dq-adds .gpupack/var/old-engine.jar
declare -A packs=([A]=/tmp/pa [H1]=/tmp/ph1 [H0]=/tmp/ph0)
row() { # BUILD B T HQ D REPS
  local v=$1 b=$2 t=$3 hq=$4 d=$5 reps=$6 out="$ab_res/ab/$1-b$2-t$3-hq$4-d$5-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random --batch "$b" --seq "$t" \
    --heads "$hq" --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 \
    --reps "$reps" --out "$out" > "$out.log" 2>&1
  printf 'round %s %-3s bwd B=%s T=%-6s HQ=%-3s D=%-3s %s\n' "$round" "$v" "$b" "$t" "$hq" "$d" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
for round in 1 2; do
  for cfg in "1 65536 64 128 5" "1 32768 64 128 10" "1 8192 64 128 10"; do
    read -r b t hq d reps <<<"$cfg"
    if [[ $round == 1 ]]; then order="A H1 H0"; else order="H0 H1 A"; fi
    for v in $order; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
  done
  ab_el "round $round done"
done
ab_save
ab_el done
