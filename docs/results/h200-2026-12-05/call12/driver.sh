#!/usr/bin/env bash
# Twenty-second session, call 12: where saw's D = 64 backward spends its instructions and its long-scoreboard stalls
# (call 11: 1.28x cuDNN's instructions, long scoreboard 3.24 against 1.32 cycles per instruction). Nsight Compute
# --set full on bwd_wgmmaws_bf16_d64 (causal 8K B = 4 H = 16, one launch, clock control off), stall samples and
# executed instructions per SASS instruction (the pack's fatbin has -lineinfo). Files in /tmp/c12 -> $OUT/c12.tgz.
set -uo pipefail
pack=$PWD/.gpupack
res=/tmp/c12
mkdir -p "$res"
exec > >(tee "$OUT/driver.log") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout -k 5 240 ncu --clock-control none --target-processes all -k regex:'^bwd_wgmmaws_bf16_d64' --launch-skip 2 --launch-count 1 \
  --set full --import-source no -f -o "$res/prof-d64" \
  "$pack/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 --head-dim 64 --dtype bf16 --block 128x128 \
  --pass bwd --reps 1 --warmup 2 --out /tmp/ncu-d64.jsonl > "$res/prof-d64.log" 2>&1
echo "ncu rc=$?"
ncu -i "$res/prof-d64.ncu-rep" --page details --print-details all > "$res/prof-d64-details.txt" 2>&1
ncu -i "$res/prof-d64.ncu-rep" --page source --csv --print-source sass > "$res/prof-d64-source.csv" 2>&1
grep -E "Elapsed Cycles|Duration|Executed Ipc|Issue Slots|Stall Long|Tensor \(All\)" "$res/prof-d64-details.txt" | head
gzip -f "$res/prof-d64-source.csv"
rm -f "$res/prof-d64.ncu-rep"
tar czf "$OUT/c12.tgz" -C /tmp c12
