#!/usr/bin/env bash
# Call 5 (twenty-ninth session): four cuts of the NSA backward's traffic lost or tied on the H100 (calls 1-4), so a
# full Nsight Compute profile of main's nsa_bwd_wgmma_bf16_d128_b64 at T = 32K (HQ = 64, Hkv = 4, S = 16, block 64):
# stall reasons per SASS instruction and the memory tables, to aim the next session. Main 0b94461 = old.fatbin +
# old-engine.jar.
#   bash docs/results/gpu-2026-12-06c/call5/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d5
xz -dc .gpupack/var/old.fatbin.xz > /tmp/old.fatbin
ab_pack /tmp/pa /tmp/old.fatbin main-0b94461 .gpupack/var/old-engine.jar
mkdir -p "$ab_res/prof"
rep=$ab_res/prof/nsa-bwd-32k
SAW_JAVA_OPTS=-Xmx24g timeout -k 5 300 ncu --clock-control none --target-processes all -k regex:'nsa_bwd_wgmma' \
  --launch-count 1 --set full --import-source no -f -o "$rep" /tmp/pa/saw bench --nsa random --seq 32768 --heads 64 \
  --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 0 --reps 1 \
  --out /tmp/ncu.jsonl > "$ab_res/prof/ncu.log" 2>&1
echo "ncu rc=$?"; tail -n 5 "$ab_res/prof/ncu.log"
ncu -i "$rep.ncu-rep" --page details --print-details all > "$rep-details.txt" 2>&1
ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$rep-source.csv" 2>&1
gzip -f "$rep-source.csv"
rm -f "$rep.ncu-rep"
grep -E "Duration|Throughput|Stall|Pipe|Hit Rate|Issued|Warp Cycles|Active Warps|Eligible|L2|DRAM|Registers|Shared Memory" \
  "$rep-details.txt" | head -90
ab_save
ab_el done
