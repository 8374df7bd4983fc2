#!/usr/bin/env bash
# Call 6 (twenty-eighth session): the NSA work items' kv-blocks up in even token chunks and down in odd ones (branch
# nsa-snake, host only), so that each chunk starts on the blocks whose K / V and dK / dV lines the chunk before touched
# last. A = main c28e452 (the pack), B = the same kernels with the branch's engine classes (.gpupack/var/snake-engine.jar).
# Two rounds alternating A, B: the backward at T = 64K (B = 1, 2), 32K, 8K and G = 8, 4; the per-block forward at G = 8
# and 4 (its items use the same order). Then the branch's quick NSA verify.
#   bash docs/results/gpu-2026-12-06b/call6/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c6
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
# (python, not unzip: the device machine has no unzip; the first run of this driver loaded a 0-byte fatbin in B)
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("saw/kernels/saw_attention.fatbin"))' \
  .gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar > /tmp/main.fatbin
ls -l /tmp/main.fatbin
ab_pack /tmp/pb /tmp/main.fatbin snake .gpupack/var/snake-engine.jar
declare -A packs=([A]=.gpupack [B]=/tmp/pb)
row() { # BUILD PASS B T HQ REPS
  local v=$1 pass=$2 b=$3 t=$4 hq=$5 reps=$6 out="$ab_res/ab/$1-$2-b$3-t$4-hq$5-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random --batch "$b" --seq "$t" --heads "$hq" \
    --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --backend gpu --pass "$pass" --warmup 2 --reps "$reps" \
    --out "$out" > "$out.log" 2>&1
  printf 'round %s %s %s B=%s T=%-6s HQ=%-3s %s\n' "$round" "$v" "$pass" "$b" "$t" "$hq" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "timing"
for round in 1 2; do
  for cfg in "bwd 1 65536 64 5" "bwd 2 65536 64 3" "bwd 1 32768 64 10" "bwd 1 8192 64 10" "bwd 1 32768 32 10" \
             "bwd 1 32768 16 10" "fwd 1 32768 32 10" "fwd 1 32768 16 10"; do
    read -r pass b t hq reps <<<"$cfg"
    for v in A B; do row $v "$pass" "$b" "$t" "$hq" "$reps"; done
  done
done
ab_el "verify"
OUT=$ab_res/check NSA_PARTS=verify NSA_VERIFY=quick timeout -k 5 120 /tmp/pb/nsa-run.sh > "$ab_res/verify.out" 2>&1
grep -E 'verify matrix|failed:' "$ab_res/verify.out"
ab_save
ab_el done
