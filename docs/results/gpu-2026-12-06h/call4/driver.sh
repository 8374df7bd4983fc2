#!/usr/bin/env bash
# Thirty-fourth session: Nsight Compute (full set, source page with warp stall samples) on the NSA forwards where issue
# 14's forward is furthest from 2x fla: the shared walk on scored T = 32K at D = 128 and D = 64, and the warp order on
# random T = 32K at D = 64 and D = 128. Main a522118's kernels (var/rows.fatbin.xz).
#   CALL_BUDGET=400 bash docs/results/gpu-2026-12-06h/call4/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init n4
xz -dc .gpupack/var/rows.fatbin.xz > /tmp/main.fatbin
ab_pack /tmp/pm4 /tmp/main.fatbin main-a522118
prof() { # NAME KERNEL_REGEX ENV -- saw bench args
  local name=$1 k=$2 envs=$3; shift 4
  env $envs SAW_JAVA_OPTS=-Xmx24g timeout -k 5 150 ncu --clock-control none --target-processes all -k regex:"$k" \
    --launch-skip 2 --launch-count 1 --set full --import-source no -f -o "$ab_res/prof-$name" /tmp/pm4/saw bench "$@" \
    > "$ab_res/prof-$name.log" 2>&1
  echo "ncu $name rc=$?"
  ncu -i "$ab_res/prof-$name.ncu-rep" --page details --print-details all > "$ab_res/prof-$name-details.txt" 2>&1
  ncu -i "$ab_res/prof-$name.ncu-rep" --page source --csv --print-source sass > "$ab_res/prof-$name-source.csv" 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Achieved Occ|Theoretical Occ|Issue Slots Busy|Executed Ipc A" \
    "$ab_res/prof-$name-details.txt" | head -14
  gzip -f "$ab_res/prof-$name-source.csv" "$ab_res/prof-$name-details.txt"; rm -f "$ab_res/prof-$name.ncu-rep"
  ab_el "profiled $name"
}
nsa() { echo "--nsa $1 --seq 32768 --heads 64 --kv-heads 4 --head-dim $2 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --reps 1 --warmup 2 --pass fwd --out /tmp/p-$1-$2.jsonl"; }
# shellcheck disable=SC2046
prof walk-d128 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- $(nsa scored 128)
# shellcheck disable=SC2046
prof walk-d64 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- $(nsa scored 64)
# shellcheck disable=SC2046
prof warp-d64 '^nsa_fwd_warp' SAW_NSA_FWD=warp -- $(nsa random 64)
# shellcheck disable=SC2046
prof warp-d128 '^nsa_fwd_warp' SAW_NSA_FWD=warp -- $(nsa random 128)
ab_save
ab_el done
