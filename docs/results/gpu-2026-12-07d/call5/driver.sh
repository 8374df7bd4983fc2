#!/usr/bin/env bash
# Forty-first session, call 5: the skipping walk (main b5e4cd1, skip.fatbin) against the warp order where call 1-4 left
# the crossing open: short random problems (T = 4K-16K, where blocks of 32 at D = 64 lost at sharing 2.93) with blocks
# of 64, and sharing below 1.15 (T = 512K with fewer heads, G = 16 kept).
# Carry .gpupack and .whl:  bash docs/results/gpu-2026-12-07d/call5/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init cross5
xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp
ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1
mkdir -p "$ab_res/ab"
row() { # ORDER SELECTION T D S BLOCK HQ HKV
  local out="$ab_res/ab/$1-$2-t$3-d$4-s$5-b$6-hq$7.jsonl"
  SAW_NSA_FWD=$1 SAW_JAVA_OPTS="-Xmx48g" timeout -k 5 150 /tmp/ps/saw bench --nsa "$2" --batch 1 --seq "$3" \
    --heads "$7" --kv-heads "$8" --head-dim "$4" --nsa-s "$5" --nsa-block "$6" --backend gpu --pass fwd --warmup 2 \
    --reps 6 --out "$out" > "$out.log" 2>&1
  printf '%-6s %-6s T=%-6s D=%-3s S=%-2s block=%-3s HQ=%-2s %s %s %s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)" "$(grep -o '"walk_sharing":[0-9.]*' "$out" | head -1)" \
    "$(grep -o '"kernel":"[^"]*"' "$out" | head -1)"
}
both() { row shared "$@"; row warp "$@"; }
ab_el "short random problems, blocks of 64"
for d in 64 128; do
  for t in 4096 8192 16384; do both random "$t" "$d" 16 64 64 4; done
done
ab_save
ab_el "sharing below 1.15: T = 512K, G = 16 with fewer heads"
both random 524288 64 16 64 32 2
ab_save
both random 524288 128 16 64 16 1
ab_save
both random 524288 128 16 32 16 1
ab_save
ab_el done
