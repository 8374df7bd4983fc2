#!/usr/bin/env bash
# Thirty-fourth session: the shared walk with a deeper ring (branch nsa-walk-ring: the ring fills 224 KB, 14 chunks at
# D = 128 and 28 at D = 64, against main's 12) against main a522118: two A/B rounds on rows where auto runs the walk and
# where it is forced, the ring build's quick NSA verify matrix with memcheck / racecheck, Nsight Compute of main's walk
# at D = 128 and 64 (scored T = 32K), then a third round if time is left.
# Carry .gpupack with var/rows.fatbin.xz (main a522118's kernels), var/ring.fatbin.xz and var/ring-engine.jar (the
# branch's host code: the ring's bytes; fatbin emptied).
#   CALL_BUDGET=460 bash docs/results/gpu-2026-12-06h/call4/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init n4
left() { echo $(( ${CALL_BUDGET:-460} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/rows.fatbin.xz > /tmp/main.fatbin
xz -dc .gpupack/var/ring.fatbin.xz > /tmp/ring.fatbin
ab_pack /tmp/pm4 /tmp/main.fatbin main-a522118
ab_pack /tmp/pg4 /tmp/ring.fatbin ring "$ab_root/.gpupack/var/ring-engine.jar"
auto_rows=("fwd scored 1 32768 64 128 10" "fwd scored 1 65536 64 128 10" "fwd scored 4 16384 64 128 10"
  "fwd scored 1 8192 64 128 10" "fwd random 1 8192 64 128 10")
walk_rows=("fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 128 10" "fwd random 1 16384 64 128 10")
rounds() { # "PACK:TAG ..." ROUND  (each round's JSON lines kept in ab-ROUND/)
  ab_nsa_rounds 1 "$1" "${auto_rows[@]}"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$1" "${walk_rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$2"; mkdir -p "$ab_res/ab"; ab_save
}
ab_el "A/B round 1 (auto rows, then the walk forced)"
rounds "/tmp/pm4:main /tmp/pg4:ring" 1
ab_el "A/B round 2"
rounds "/tmp/pg4:ring /tmp/pm4:main" 2
ab_el "ring: quick verify matrix, memcheck and racecheck"
AB_CHECK_TIMEOUT=200 ab_nsa_check /tmp/pg4 ringcheck NSA_PARTS="verify sanitizer" NSA_VERIFY=quick \
  NSA_SAN_TOOLS="memcheck racecheck"
ab_save
prof() { # NAME KERNEL_REGEX ENV -- saw bench args
  local name=$1 k=$2 envs=$3; shift 4
  env $envs SAW_JAVA_OPTS=-Xmx24g timeout -k 5 90 ncu --clock-control none --target-processes all -k regex:"$k" \
    --launch-skip 2 --launch-count 1 --set full --import-source no -f -o "$ab_res/prof-$name" /tmp/pm4/saw bench "$@" \
    > "$ab_res/prof-$name.log" 2>&1
  echo "ncu $name rc=$?"
  ncu -i "$ab_res/prof-$name.ncu-rep" --page details --print-details all > "$ab_res/prof-$name-details.txt" 2>&1
  ncu -i "$ab_res/prof-$name.ncu-rep" --page source --csv --print-source sass > "$ab_res/prof-$name-source.csv" 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|Registers Per|Achieved Occ|Issue Slots Busy" \
    "$ab_res/prof-$name-details.txt" | head -8
  gzip -f "$ab_res/prof-$name-source.csv" "$ab_res/prof-$name-details.txt"; rm -f "$ab_res/prof-$name.ncu-rep"
  ab_el "profiled $name"
}
nsa() { echo "--nsa scored --seq 32768 --heads 64 --kv-heads 4 --head-dim $1 --nsa-s 16 --nsa-block 64 --dtype bf16 --backend gpu --reps 1 --warmup 2 --pass fwd --out /tmp/p-$1.jsonl"; }
if (( $(left) > 110 )); then
  # shellcheck disable=SC2046
  prof walk-d128 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- $(nsa 128)
fi
if (( $(left) > 80 )); then
  # shellcheck disable=SC2046
  prof walk-d64 '^nsa_fwd_shared' SAW_NSA_FWD=shared -- $(nsa 64)
fi
ab_save
if (( $(left) > 60 )); then
  ab_el "A/B round 3"
  rounds "/tmp/pm4:main /tmp/pg4:ring" 3
fi
ab_el done
