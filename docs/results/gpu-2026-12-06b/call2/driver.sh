#!/usr/bin/env bash
# Call 2 (twenty-eighth session): why the NSA backward runs 19-27% slower on the H100 than on the H200 (fla: the
# same on both), falling to 1.75x fla at T = 64K. Branch nsa-bwd-order (host only: the backward's work items by
# system properties saw.nsa.bwdChunkMiB (32), saw.nsa.bwdItemRows (2048), saw.nsa.bwdRangeBlocks (0: none)); the
# kernels are main's (8531a91).
#  A. Nsight Compute, one backward at T = 64K and 8K (B = 1, HQ = 64, Hkv = 4, D = 128, block 64, S = 16, random):
#     duration, DRAM bytes, L2 hit rate of each kernel.
#  B. The backward's work order swept at T = 64K, 32K and 8K (saw bench --pass bwd, medians of 5-10).
#   bash docs/results/gpu-2026-12-06b/call2/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
export SAW_JAVA_OPTS=-Xmx24g
nsa() { # T PASS REPS OUT [JAVA OPTS...]
  local t=$1 pass=$2 reps=$3 out=$4; shift 4
  SAW_JAVA_OPTS="-Xmx24g $*" .gpupack/saw bench --nsa random --seq "$t" --heads 64 --kv-heads 4 --head-dim 128 \
    --nsa-s 16 --nsa-block 64 --backend gpu --pass "$pass" --warmup 2 --reps "$reps" --out "$out" > "$out.log" 2>&1
}
ab_el "A. profiles"
mkdir -p "$ab_res/prof"
for t in 65536 8192; do
  SAW_JAVA_OPTS=-Xmx24g timeout -k 5 150 ncu --clock-control none --target-processes all -k regex:'nsa_bwd|bwd_dq|bwd_pre' \
    --launch-count 5 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size \
    --csv .gpupack/saw bench --nsa random --seq $t --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 \
    --backend gpu --pass bwd --warmup 0 --reps 1 --out /tmp/ncu-$t.jsonl > "$ab_res/prof/bwd-$t.csv" 2>&1
  echo "ncu T=$t rc=$?"
  grep -E '"(gpu__time|dram__bytes|lts__t_sector_hit|lts__t_bytes)' "$ab_res/prof/bwd-$t.csv" | awk -F'","' '{printf "%s %s %s %s\n", $5, $(NF-2), $(NF-1), $NF}' | sed 's/"//g' | cut -c1-160
done
ab_el "B. work order"
row() { # LABEL T REPS OPTS...
  local label=$1 t=$2 reps=$3; shift 3
  nsa "$t" bwd "$reps" "$ab_res/ab/$label.jsonl" "$@"
  printf '%-28s %s\n' "$label" "$(grep -o '"median_ms":[0-9.]*' "$ab_res/ab/$label.jsonl" | head -1) $(grep -o '"kernel":"[^"]*"' "$ab_res/ab/$label.jsonl" | head -1)"
}
row 64k-default 65536 5
row 64k-chunk16 65536 5 -Dsaw.nsa.bwdChunkMiB=16
row 64k-chunk64 65536 5 -Dsaw.nsa.bwdChunkMiB=64
row 64k-range256 65536 5 -Dsaw.nsa.bwdRangeBlocks=256
row 64k-range256-chunk16 65536 5 -Dsaw.nsa.bwdRangeBlocks=256 -Dsaw.nsa.bwdChunkMiB=16
row 64k-range128-chunk16 65536 5 -Dsaw.nsa.bwdRangeBlocks=128 -Dsaw.nsa.bwdChunkMiB=16
row 64k-range512 65536 5 -Dsaw.nsa.bwdRangeBlocks=512
row 64k-rows4096 65536 5 -Dsaw.nsa.bwdItemRows=4096
row 64k-default2 65536 5
row 32k-default 32768 10
row 32k-chunk16 32768 10 -Dsaw.nsa.bwdChunkMiB=16
row 32k-range256 32768 10 -Dsaw.nsa.bwdRangeBlocks=256
row 32k-range256-chunk16 32768 10 -Dsaw.nsa.bwdRangeBlocks=256 -Dsaw.nsa.bwdChunkMiB=16
row 8k-default 8192 10
row 8k-rows4096 8192 10 -Dsaw.nsa.bwdItemRows=4096
row 8k-rows8192 8192 10 -Dsaw.nsa.bwdItemRows=8192
row 8k-chunk64 8192 10 -Dsaw.nsa.bwdChunkMiB=64
row 8k-default2 8192 10
ab_save
ab_el done
