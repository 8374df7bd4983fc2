#!/usr/bin/env bash
# Forty-first session, call 6: a second run of the crossing rows nearest the moved thresholds (calls 1-5 ran each
# once), the warp order first this time; main b5e4cd1's kernels (skip.fatbin), G = 16, bf16, S = 16.
# Carry .gpupack and .whl:  bash docs/results/gpu-2026-12-07d/call6/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init cross6
xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp skip.fatbin
ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1
mkdir -p "$ab_res/ab"
row() { # ORDER SELECTION T D BLOCK HQ HKV
  local out="$ab_res/ab/$1-$2-t$3-d$4-b$5-hq$6.jsonl"
  SAW_NSA_FWD=$1 SAW_JAVA_OPTS="-Xmx48g" timeout -k 5 150 /tmp/ps/saw bench --nsa "$2" --batch 1 --seq "$3" \
    --heads "$6" --kv-heads "$7" --head-dim "$4" --nsa-s 16 --nsa-block "$5" --backend gpu --pass fwd --warmup 2 \
    --reps 6 --out "$out" > "$out.log" 2>&1
  printf '%-6s %-6s T=%-6s D=%-3s block=%-3s HQ=%-2s %s %s %s\n' "$1" "$2" "$3" "$4" "$5" "$6" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)" "$(grep -o '"walk_sharing":[0-9.]*' "$out" | head -1)" \
    "$(grep -o '"kernel":"[^"]*"' "$out" | head -1)"
}
both() { row warp "$@"; row shared "$@"; }
ab_el "round 2 of the rows nearest the thresholds, warp order first"
both random 196608 128 64 64 4
both random 131072 128 64 64 4
both random 98304 128 64 64 4
both random 524288 128 64 16 1
both random 524288 64 64 32 2
both random 262144 64 64 64 4
ab_save
both random 131072 128 32 64 4
both random 65536 128 32 64 4
both random 524288 128 32 16 1
both random 8192 64 32 64 4
both random 4096 64 32 64 4
both scored 65536 64 32 64 4
ab_save
ab_el done
