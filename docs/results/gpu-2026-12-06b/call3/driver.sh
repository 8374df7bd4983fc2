#!/usr/bin/env bash
# Call 3 (twenty-eighth session): L2 eviction priorities in the NSA warpgroup backward (branch nsa-bwd-order).
# Call 2 put the backward's main kernel at 40.8 GB of DRAM traffic at T = 64K (25.4 read, 15.4 written; L2 hit rate
# 68%) against about 7 GB that Q, dO, the dQ accumulator, K, V and the dK / dV accumulators need once: the K / V
# loads and the dK / dV adds of each item, touched once per token chunk, push the chunk's Q, dO and dQ lines out.
# Builds (sm_90a fatbins, host = the branch's engine jar, backward items by saw.nsa.bwdChunkMiB):
#   A  main's kernels (8531a91, -DNSA_BWD_L2=0, sm_90a only like B and C; the pack's engine jar carries no fatbin)
#   B  -DNSA_BWD_L2=1: K / V copies and dK / dV adds with L2::evict_first
#   C  -DNSA_BWD_L2=2: B, and the Q / dO gathers and dQ adds with L2::evict_last
# 1. NSA backward medians, two rounds alternating A, B, C, at T = 64K, 32K, 8K (B = 1, HQ = 64, Hkv = 4, D = 128,
#    block 64, S = 16, random) and token chunks of 32 (default), 16 and 64 or 8 MiB.
# 2. DRAM bytes of the main kernel (Nsight Compute) for B and C at T = 64K.
# 3. nsa-run.sh quick verify on B and C, memcheck on C.
#   bash docs/results/gpu-2026-12-06b/call3/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c3
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
for m in main l2-1 l2-2; do xz -dc .gpupack/var/$m.fatbin.xz > /tmp/fb-$m.fatbin; done
(cd /tmp && sha256sum fb-main.fatbin fb-l2-1.fatbin fb-l2-2.fatbin) > "$ab_res/fatbins.sha256"
ab_pack /tmp/pa /tmp/fb-main.fatbin main-8531a91-sm90a
ab_pack /tmp/pb /tmp/fb-l2-1.fatbin l2-1
ab_pack /tmp/pc /tmp/fb-l2-2.fatbin l2-2
declare -A packs=([A]=/tmp/pa [B]=/tmp/pb [C]=/tmp/pc)
row() { # BUILD T CHUNK REPS
  local b=$1 t=$2 c=$3 reps=$4 out="$ab_res/ab/$1-$2-c$3-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx24g -Dsaw.nsa.bwdChunkMiB=$c" timeout -k 5 120 "${packs[$b]}/saw" bench --nsa random --seq "$t" \
    --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 --reps "$reps" \
    --out "$out" > "$out.log" 2>&1
  printf 'round %s %s T=%-6s chunk %-3s %s\n' "$round" "$b" "$t" "$c" "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "1. timing"
for round in 1 2; do
  for cfg in "65536 32 5" "65536 16 5" "65536 64 5" "32768 32 10" "32768 16 10" "32768 8 10" "8192 32 10" "8192 16 10" "8192 8 10"; do
    read -r t c reps <<<"$cfg"
    for b in A B C; do row $b "$t" "$c" "$reps"; done
  done
done
ab_el "2. DRAM bytes at 64K"
for b in B C; do for c in 32 16; do
  SAW_JAVA_OPTS="-Xmx24g -Dsaw.nsa.bwdChunkMiB=$c" timeout -k 5 120 ncu --clock-control none --target-processes all \
    -k regex:'nsa_bwd' --launch-count 1 --csv \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
    "${packs[$b]}/saw" bench --nsa random --seq 65536 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 \
    --backend gpu --pass bwd --warmup 0 --reps 1 --out /tmp/ncu.jsonl > "$ab_res/ncu-$b-c$c.csv" 2>&1
  echo "$b chunk $c: $(grep -E '"(gpu__time|dram__bytes|lts__t_sector_hit)' "$ab_res/ncu-$b-c$c.csv" | awk -F'","' '{printf "%s %s %s; ", $(NF-2), $(NF-1), $NF}' | sed 's/"//g')"
done; done
ab_el "3. checks"
for b in B C; do
  OUT=$ab_res/check-$b NSA_PARTS="verify" NSA_VERIFY=quick timeout -k 5 150 "${packs[$b]}/nsa-run.sh" > "$ab_res/check-$b.out" 2>&1
  echo "$b: $(grep 'verify matrix' "$ab_res/check-$b.out")"; grep -A0 'failed:' "$ab_res/check-$b.out"
done
OUT=$ab_res/check-C NSA_PARTS="sanitizer" NSA_SAN_TOOLS=memcheck timeout -k 5 150 /tmp/pc/nsa-run.sh > "$ab_res/san-C.out" 2>&1
grep 'compute-sanitizer' "$ab_res/san-C.out"
ab_save
ab_el done
