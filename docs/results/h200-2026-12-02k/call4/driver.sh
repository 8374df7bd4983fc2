#!/usr/bin/env bash
# session 11, call 4 (pack at 5756970; the NSA code is main's): Nsight Compute (full set, SASS source page) of the NSA
# per-block forward on warpgroup MMA (nsa_fwd_block_wgmma + nsa_merge) at T = 32K, HQ = 64, Hkv = 4, D = 128, block 64,
# S = 16, random selections, where it runs 9.9 ms against the warp order's 8.0 and fla's 10.3: what bounds it
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/k4
mkdir -p "$res"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
NSA="--nsa random --seq 32768 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu"
for o in block warp; do
  SAW_NSA_FWD=$o SAW_JAVA_OPTS=-Xmx24g timeout 100 "$pack/saw" bench $NSA --pass fwd --reps 10 --warmup 3 --out "$res/bench-$o.jsonl" > /dev/null 2>&1
  python3 -c "import json; r=[json.loads(l) for l in open('$res/bench-$o.jsonl')][0]; print('$o', r.get('kernel'), r.get('median_ms'), 'ms', r.get('useful_tflops'))"
done
el "ncu"
SAW_NSA_FWD=block SAW_JAVA_OPTS=-Xmx24g timeout -k 5 240 ncu --clock-control none --target-processes all -k regex:'^nsa_(fwd_block|merge)' \
  --launch-skip 2 --launch-count 2 --set full --import-source no -f -o "$res/prof-nsa-blockwg" "$pack/saw" bench $NSA --pass fwd \
  --reps 1 --warmup 2 --out /tmp/ncu.jsonl > "$res/prof-nsa-blockwg.log" 2>&1
echo "ncu rc=$?"
ncu -i "$res/prof-nsa-blockwg.ncu-rep" --page details --print-details all > "$res/prof-nsa-blockwg-details.txt" 2>&1
ncu -i "$res/prof-nsa-blockwg.ncu-rep" --page source --csv --print-source sass > "$res/prof-nsa-blockwg-source.csv" 2>&1
ncu -i "$res/prof-nsa-blockwg.ncu-rep" --page raw --csv > "$res/prof-nsa-blockwg-raw.csv" 2>&1
grep -E "^  [a-z_]+.*\(|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occ|Issue Slots Busy|No Eligible" "$res/prof-nsa-blockwg-details.txt" | head -40
python3 - "$res/prof-nsa-blockwg-raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]
for val in rows[2:]:
    d = dict(zip(hdr, val))
    print("==", d.get("Kernel Name"), d.get("gpu__time_duration.sum"))
    for k in ["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
              "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
              "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum", "dram__bytes_write.sum",
              "lts__t_bytes.sum", "sm__warps_active.avg.per_cycle_active", "smsp__inst_executed.sum"]:
        print(" ", k, d.get(k))
    st = sorted(((a, b) for a, b in d.items() if a.startswith("smsp__average_warps_issue_stalled_") and a.endswith("_per_issue_active.ratio")),
                key=lambda x: -float(x[1] or 0))
    for a, b in st[:8]: print("  stall", a.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", ""), b)
PY
gzip -f "$res/prof-nsa-blockwg-source.csv" "$res/prof-nsa-blockwg-details.txt" "$res/prof-nsa-blockwg-raw.csv"; rm -f "$res/prof-nsa-blockwg.ncu-rep"
el done
ls -la "$res"
