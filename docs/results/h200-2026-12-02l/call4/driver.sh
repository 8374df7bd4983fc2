#!/usr/bin/env bash
# session 12, call 4 (pack .gpupack-l4 at main, the kernels of 79bf92e): the NSA verify matrix in full and the
# sanitizers (nsa-run.sh parts verify and sanitizer) on what landed, then Nsight Compute of the per-block forward
# (nsa_fwd_block_wgmma + nsa_merge) at T = 32K, HQ = 64, Hkv = 4, D = 128, block 64, S = 16, as the eleventh session's
# call 4 did before the row cursors and the early merge loads
set -uo pipefail
root=$PWD
pack=$root/.gpupack-l4
res=$OUT/l4
mkdir -p "$res"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
export SAW_JAVA_OPTS=-Xmx24g
el "verify (all) + sanitizer"
( OUT=$res NSA_PARTS="verify sanitizer" NSA_SAN_TOOLS="memcheck racecheck" timeout -k 5 300 bash "$pack/nsa-run.sh" > "$res/nsa-run.txt" 2>&1 )
grep -E "^FAIL|verify matrix|failed|compute-sanitizer" "$res/nsa-run.txt" | cut -c1-220
el "ncu"
NSA="--nsa random --seq 32768 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu"
SAW_NSA_FWD=block timeout 100 "$pack/saw" bench $NSA --pass fwd --reps 10 --warmup 3 --out "$res/bench-block.jsonl" > /dev/null 2>&1
python3 -c "import json; r=[json.loads(l) for l in open('$res/bench-block.jsonl')][0]; print('block', r.get('kernel'), r.get('median_ms'), 'ms', r.get('useful_tflops'))"
SAW_NSA_FWD=block timeout -k 5 200 ncu --clock-control none --target-processes all -k regex:'^nsa_(fwd_block|merge)' \
  --launch-skip 2 --launch-count 2 --set full --import-source no -f -o "$res/prof" "$pack/saw" bench $NSA --pass fwd \
  --reps 1 --warmup 2 --out /tmp/ncu.jsonl > "$res/prof.log" 2>&1
echo "ncu rc=$?"
ncu -i "$res/prof.ncu-rep" --page details --print-details all > "$res/prof-nsa-lean-details.txt" 2>&1
ncu -i "$res/prof.ncu-rep" --page source --csv --print-source sass > "$res/prof-nsa-lean-source.csv" 2>&1
ncu -i "$res/prof.ncu-rep" --page raw --csv > "$res/prof-nsa-lean-raw.csv" 2>&1
grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|Registers Per|Achieved Occ|Issue Slots Busy|No Eligible" "$res/prof-nsa-lean-details.txt" | head -30
python3 - "$res/prof-nsa-lean-raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]
for val in rows[2:]:
    d = dict(zip(hdr, val))
    print("==", d.get("Kernel Name"), d.get("gpu__time_duration.sum"))
    for k in ["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum", "dram__bytes_write.sum",
              "dram__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_bytes.sum", "sm__warps_active.avg.per_cycle_active", "smsp__inst_executed.sum"]:
        print(" ", k, d.get(k))
    st = sorted(((a, b) for a, b in d.items() if a.startswith("smsp__average_warps_issue_stalled_") and a.endswith("_per_issue_active.ratio")),
                key=lambda x: -float(x[1] or 0))
    for a, b in st[:8]: print("  stall", a.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", ""), b)
PY
gzip -f "$res/prof-nsa-lean-source.csv" "$res/prof-nsa-lean-details.txt" "$res/prof-nsa-lean-raw.csv"; rm -f "$res/prof.ncu-rep"
el done
cd "$OUT" && tar czf l4-logs.tgz l4 && rm -rf l4/nsa l4/prof.log l4/bench-block.jsonl && ls -la "$OUT" "$OUT/l4"
