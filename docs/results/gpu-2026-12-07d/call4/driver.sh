#!/usr/bin/env bash
# Forty-first session, call 3: where the skipping walk (main b5e4cd1, skip.fatbin) crosses the warp order with blocks
# of 32 (32-key chunks; NsaGpu.Forward.sharedMinSharing 1.5 at D = 128 and 3.3 at D = 64, set on the old walk).
# Random and scored selections, S = 16 and 32, G = 16 (HQ = 64, Hkv = 4), bf16, falling sharing with T.
# Carry .gpupack and .whl:  bash docs/results/gpu-2026-12-07d/call3/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init block32b
xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp
ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1
mkdir -p "$ab_res/ab"
t32() { # ORDER SELECTION T D S
  local out="$ab_res/ab/$1-$2-t$3-d$4-s$5.jsonl"
  SAW_NSA_FWD=$1 SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 /tmp/ps/saw bench --nsa "$2" --batch 1 --seq "$3" \
    --heads 64 --kv-heads 4 --head-dim "$4" --nsa-s "$5" --nsa-block 32 --backend gpu --pass fwd --warmup 2 --reps 6 \
    --out "$out" > "$out.log" 2>&1
  printf '%-6s %-6s T=%-6s D=%-3s S=%-2s %s %s %s\n' "$1" "$2" "$3" "$4" "$5" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)" "$(grep -o '"walk_sharing":[0-9.]*' "$out" | head -1)" \
    "$(grep -o '"kernel":"[^"]*"' "$out" | head -1)"
}
ab_el "D=64 blocks of 32 between sharing 1.57 and 2.75"
for row in "random 8192 16" "random 4096 16" "scored 131072 16" "scored 262144 16" "random 8192 32" "scored 131072 32"; do
  set -- $row; t32 shared "$1" "$2" 64 "$3"; t32 warp "$1" "$2" 64 "$3"
done
ab_save; ab_el done
