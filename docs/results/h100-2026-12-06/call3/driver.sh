#!/usr/bin/env bash
# Call 3 (twenty-seventh session): issue 12's table on the landed kernels (main bc66977 = uax-d64's du.fatbin of
# call 2) with the documents and window rows against PyTorch's ragged-batch peers (bench/gpu/varlen_peers.py, new in
# frontier-table.sh), then Nsight Compute (full set, stall samples per SASS instruction) of the 64-documents backward's
# main kernel, to see what a short column waits on. Carried: .gpupack with var/fatbins-06.tar.xz (call 2's).
#   bash docs/results/h100-2026-12-06/call3/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c3
python3 -c "import tarfile; tarfile.open('.gpupack/var/fatbins-06.tar.xz').extractall('/tmp/fb')"
(cd /tmp/fb && sha256sum -c "$ab_root/docs/results/h100-2026-12-06/call2/fatbins.sha256") || echo "fatbins differ"
ab_pack /tmp/pd /tmp/fb/du.fatbin main-bc66977
ab_el "1. issue 12's table"
OUT=/tmp/c3 timeout -k 5 360 /tmp/pd/frontier-table.sh > /dev/null 2>&1 || echo "frontier-table rc=$?"
cat /tmp/c3/frontier/varlen.txt
cat /tmp/c3/frontier/table.txt
ab_save
ab_el "2. profile: 64 documents in 32K, D = 128 backward"
spec=/tmp/c3/frontier/specs/docs64-32k.json
timeout 200 ncu --clock-control none --target-processes all -k regex:'^bwd_wgmmaws_bf16_d128' --launch-skip 2 \
  --launch-count 1 --set full --import-source no -f -o /tmp/c3/prof-docs64-bwd \
  /tmp/pd/saw bench "$spec" --backend gpu --head-dim 128 --block 128x128 --pass bwd --reps 1 --warmup 2 \
  --out /tmp/c3/ncu-bench.jsonl > /tmp/c3/prof-docs64-bwd.log 2>&1; echo "ncu rc=$?"
ncu -i /tmp/c3/prof-docs64-bwd.ncu-rep --page details --print-details all > /tmp/c3/prof-docs64-bwd-details.txt 2>&1
ncu -i /tmp/c3/prof-docs64-bwd.ncu-rep --page source --csv --print-source sass > /tmp/c3/prof-docs64-bwd-source.csv 2>&1
gzip -f /tmp/c3/prof-docs64-bwd-source.csv; rm -f /tmp/c3/prof-docs64-bwd.ncu-rep
grep -E "Duration|Elapsed Cycles|SM Frequency|Throughput|Issue Slots|Pipe|Stall|Warp Cycles|Achieved" /tmp/c3/prof-docs64-bwd-details.txt | head -40
ab_save
ab_el done
