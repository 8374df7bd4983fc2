#!/usr/bin/env bash
# Call 4 (twenty-eighth session): the NSA backward's token chunk, swept on every published shape with build C of
# call 3 (-DNSA_BWD_L2=2: streamed K / V copies and dK / dV adds evict_first, the chunk's Q / dO gathers and dQ adds
# evict_last), host = branch nsa-bwd-order with the chunk by saw.nsa.bwdChunkKiB. Call 3 found the best chunk at
# 8 MiB for T = 8K, 16 MiB for 32K and 32 MiB for 64K (G = 16, D = 128): one rule has to cover G, D, B and T.
#   bash docs/results/gpu-2026-12-06b/call4/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c4
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
xz -dc .gpupack/var/l2-2.fatbin.xz > /tmp/fb-l2-2.fatbin
(cd /tmp && sha256sum fb-l2-2.fatbin) > "$ab_res/fatbins.sha256"
ab_pack /tmp/pc /tmp/fb-l2-2.fatbin l2-2
row() { # B T HQ D REPS CHUNK_KIB
  local b=$1 t=$2 hq=$3 d=$4 reps=$5 c=$6 out="$ab_res/ab/b$1-t$2-hq$3-d$4-c$6-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g -Dsaw.nsa.bwdChunkKiB=$c" timeout -k 5 120 /tmp/pc/saw bench --nsa random --batch "$b" --seq "$t" \
    --heads "$hq" --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 \
    --reps "$reps" --out "$out" > "$out.log" 2>&1
  printf 'round %s B=%s T=%-6s HQ=%-3s D=%-4s chunk %6s KiB %s\n' "$round" "$b" "$t" "$hq" "$d" "$c" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "timing"
for round in 1 2; do
  for c in 2048 4096 8192; do row 1 8192 64 128 10 $c; done
  for c in 4096 8192 16384 32768; do row 4 16384 64 128 5 $c; done
  for c in 4096 8192 16384; do row 1 32768 64 64 10 $c; done
  for c in 4096 8192 16384 32768; do row 1 32768 32 128 10 $c; done
  for c in 2048 4096 8192 16384; do row 1 32768 16 128 10 $c; done
  for c in 24576 32768 49152; do row 1 65536 64 128 5 $c; done
  for c in 16384 32768; do row 2 65536 64 128 3 $c; done
done
ab_save
ab_el done
