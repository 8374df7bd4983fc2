#!/usr/bin/env bash
# Session 14, call 6: why the D = 256 128-row forward (main 756b4be, the real build in .gpupack-n4) runs slower at
# causal 16K (B = 2) than at 8K (B = 4) while cuDNN runs faster: Nsight Compute's speed-of-light and memory-workload
# sections on one launch of fwd_wgmmapp_bf16_d256_q128_kv64 per shape (clock control off, as hopper-lib.sh's ncu_causal).
set -uo pipefail
pack=$PWD/.gpupack-n4
res=$OUT/n6
mkdir -p "$res"
exec > >(tee "$res/driver.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
prof() { # TAG SEQ BATCH HEADS EXTRA
  timeout 150 ncu --clock-control none --target-processes all -k regex:'^fwd_wgmmapp_bf16_d256' --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats -f -o "$res/prof-$1" \
    "$pack/saw" bench preset:causal --backend gpu --seq "$2" --batch "$3" --heads "$4" --head-dim 256 --block 64x64 $5 \
    --pass fwd --reps 1 --warmup 2 --out "/tmp/ncu-$1.jsonl" > "$res/prof-$1.log" 2>&1
  echo "ncu $1 rc=$?"
  ncu -i "$res/prof-$1.ncu-rep" --page details --print-details all > "$res/prof-$1-details.txt" 2>&1
  grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Memory Throughput|Compute \(SM\) Throughput|L2 Hit|lts__t_sector_hit|Hit Rate|Grid Size|Mem Busy|Max Bandwidth" "$res/prof-$1-details.txt" | head -24
  rm -f "$res/prof-$1.ncu-rep"
}
prof causal8k 8192 4 16 ""
prof causal16k 16384 2 16 ""
prof gqa16k 16384 1 32 "--kv-heads 8"
cd "$OUT" && tar czf n6-logs.tgz n6 && ls -la "$OUT/n6"
