#!/usr/bin/env bash
# Next session, optional call D (about 2 minutes per pack and kernel): Nsight Compute --set full on one launch of the
# D = 128 and D = 64 warp-specialised backward (causal 8K, B = 4, H = 16, clock control off) of each pack named
# (default main and UAX): the details page, and stall samples and executed instructions per SASS instruction (the
# fatbins carry -lineinfo), so that what the chosen build left in the step can be read without another call.
# e.g. bash call-d.sh /tmp/pa /tmp/px
set -uo pipefail
. docs/results/h200-2026-12-05c/next-not-run/lib.sh cd
packs=("$@")
(( ${#packs[@]} )) || packs=(/tmp/pa /tmp/puax)
for p in "${packs[@]}"; do
  for d in 128 64; do
    name=$(basename "$p")-d$d
    ab_el "ncu $name"
    timeout -k 5 200 ncu --clock-control none --target-processes all -k regex:"^bwd_wgmmaws_bf16_d$d" --launch-skip 2 \
      --launch-count 1 --set full --import-source no -f -o "/tmp/cd/$name" \
      "$p/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 --head-dim "$d" --dtype bf16 \
      --block 128x128 --pass bwd --reps 1 --warmup 2 --out "/tmp/cd/$name.jsonl" >"/tmp/cd/$name.log" 2>&1
    echo "ncu $name rc=$?"
    ncu -i "/tmp/cd/$name.ncu-rep" --page details --print-details all >"/tmp/cd/$name-details.txt" 2>&1
    ncu -i "/tmp/cd/$name.ncu-rep" --page source --csv --print-source sass >"/tmp/cd/$name-source.csv" 2>&1
    grep -E "Elapsed Cycles|Duration|Executed Ipc|Issue Slots|Stall Long|Tensor \(All\)" "/tmp/cd/$name-details.txt" | head
    gzip -f "/tmp/cd/$name-source.csv"
    rm -f "/tmp/cd/$name.ncu-rep"
  done
done
ab_save
ab_el done
