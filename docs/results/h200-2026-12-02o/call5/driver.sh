#!/usr/bin/env bash
# Session 15, call 5: why the kept row max loses at D = 64 (calls 1-2: cr2 0.94-0.95x, cr3 0.97x of main). Nsight
# Compute on one launch each of fwd_wgmmapp_bf16_d64_q128_kv128 at causal 8K B = 4 H = 16 (clock control off) for main
# (57b67bf's kernels), cr2 (kept max + skipped rescale) and cr3 (kept max, multiply always run): speed of light, warp
# states, scheduler, instruction and pipe statistics, and the source counters' stall summary. Pack and fatbins as call 2.
set -uo pipefail
root=$PWD
pack=$root/.gpupack-o1
res=$OUT/o5
mkdir -p "$res"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
for v in main cr2 cr3; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"; cp "$pack/saw" "$d/"
  rm -f "$d"/lib/saw-engine-*.jar
  python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
done
for v in main cr2 cr3; do
  timeout 120 ncu --clock-control none --target-processes all -k regex:'^fwd_wgmmapp_bf16_d64' --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --section ComputeWorkloadAnalysis --section SourceCounters --section LaunchStats -f -o "$res/prof-$v" \
    /tmp/pack-$v/saw bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 --head-dim 64 --block 128x128 \
    --pass fwd --reps 1 --warmup 2 --out "/tmp/ncu-$v.jsonl" > "$res/prof-$v.log" 2>&1
  el "ncu $v rc=$?"
  ncu -i "$res/prof-$v.ncu-rep" --page details --print-details all > "$res/prof-$v-details.txt" 2>&1
  ncu -i "$res/prof-$v.ncu-rep" --page raw --csv > "$res/prof-$v-raw.csv" 2>&1
  grep -E "Elapsed Cycles|Duration|SM Frequency|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Executed Instructions  " "$res/prof-$v-details.txt" | head -12
done
python3 - "$res" <<'PY' | tee "$res/stalls.txt"
import csv, sys
res = sys.argv[1]
rows = {}
for v in ("main", "cr2", "cr3"):
    with open(f"{res}/prof-{v}-raw.csv") as f:
        r = list(csv.reader(f))
    if len(r) < 3: continue
    head, vals = r[0], r[2]
    rows[v] = dict(zip(head, vals))
keys = sorted(k for k in rows.get("main", {}) if ("smsp__average_warps_issue_stalled_" in k and k.endswith("_per_issue_active.ratio"))
              or k in ("sm__cycles_elapsed.avg", "smsp__inst_executed.sum", "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
                       "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.pct_of_peak_sustained_active"))
print(f'{"metric":90s} ' + " ".join(f"{v:>12s}" for v in rows))
for k in keys:
    print(f"{k:90s} " + " ".join(f"{rows[v].get(k, ''):>12s}" for v in rows))
PY
el done
cd "$OUT" && for v in main cr2 cr3; do rm -f o5/prof-$v.ncu-rep; gzip -f o5/prof-$v-raw.csv; done; tar czf o5-logs.tgz o5; ls -la o5
