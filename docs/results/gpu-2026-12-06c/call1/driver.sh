#!/usr/bin/env bash
# Call 1 (twenty-ninth session): the NSA backward's dQ in a ring of per-unit fp32 slots, converted inside the launch
# (branch dq-ring) against main 0b94461. A = main (.gpupack/var/old.fatbin.xz, sm_90a, with .gpupack/var/old-engine.jar),
# B = dq-ring (.gpupack/var/r3.fatbin.xz with the pack's engine jar). First the ring's correctness (a deadlock would
# show as a timeout): the quick NSA verify, then compute-sanitizer memcheck / synccheck / racecheck on the NSA cases;
# then two rounds alternating A and B over issue 14's backward shapes.
#   bash docs/results/gpu-2026-12-06c/call1/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d1
xz -dc .gpupack/var/old.fatbin.xz > /tmp/old.fatbin
xz -dc .gpupack/var/r3.fatbin.xz > /tmp/r3.fatbin
ls -l /tmp/old.fatbin /tmp/r3.fatbin
ab_pack /tmp/pa /tmp/old.fatbin main-0b94461 .gpupack/var/old-engine.jar
ab_pack /tmp/pb /tmp/r3.fatbin dq-ring
declare -A packs=([A]=/tmp/pa [B]=/tmp/pb)
ab_el "quick NSA verify of B"
OUT=$ab_res/check NSA_PARTS=verify NSA_VERIFY=quick timeout -k 5 170 /tmp/pb/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify.out" | head -20
ab_el "B with short backward chunks (-Dsaw.nsa.bwdChunk): many units, the ring's slots reused, lag > 2"
pids=()
VOPTS=-Dsaw.nsa.bwdChunk=64 ab_verify /tmp/pb chunk64-wgmma-b64 --nsa random --nsa-block 64 --nsa-s 16 --heads 32 \
  --kv-heads 2 --head-dim 128 --dtype bf16 --seq 2048 --pass fwd,bwd & pids+=($!)
VOPTS=-Dsaw.nsa.bwdChunk=100 ab_verify /tmp/pb chunk100-mma-b32 --nsa random --nsa-block 32 --nsa-s 8 --heads 16 \
  --kv-heads 4 --head-dim 64 --dtype fp16 --softcap 20 --seq 3000 --batch 2 --pass fwd,bwd & pids+=($!)
VOPTS=-Dsaw.nsa.bwdChunk=128 ab_verify /tmp/pb chunk128-wgmma-b128 --nsa random --nsa-block 128 --nsa-s 4 --heads 24 \
  --kv-heads 1 --head-dim 64 --dtype bf16 --seq 2500 --pass fwd,bwd & pids+=($!)
VOPTS=-Dsaw.nsa.bwdChunk=7 ab_verify /tmp/pb chunk7-wgmma-b64 --nsa random --nsa-block 64 --nsa-s 2 --heads 4 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 900 --pass fwd,bwd & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
JOPTS=-Dsaw.nsa.bwdChunk=64 ab_san /tmp/pb chunk64 memcheck --nsa random --nsa-block 64 --nsa-s 16 --heads 16 \
  --kv-heads 1 --head-dim 128 --dtype bf16 --seq 1100 --pass fwd,bwd
JOPTS=-Dsaw.nsa.bwdChunk=64 ab_san /tmp/pb chunk64 synccheck --nsa random --nsa-block 64 --nsa-s 16 --heads 16 \
  --kv-heads 1 --head-dim 128 --dtype bf16 --seq 1100 --pass fwd,bwd
ab_el "compute-sanitizer on B"
OUT=$ab_res/san NSA_PARTS=sanitizer NSA_SAN_TOOLS="memcheck synccheck racecheck" timeout -k 5 200 /tmp/pb/nsa-run.sh \
  > "$ab_res/san.out" 2>&1
echo "rc=$?"; grep -E 'compute-sanitizer' "$ab_res/san.out" | head -30
row() { # BUILD B T HQ D REPS
  local v=$1 b=$2 t=$3 hq=$4 d=$5 reps=$6 out="$ab_res/ab/$1-b$2-t$3-hq$4-d$5-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random --batch "$b" --seq "$t" --heads "$hq" \
    --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 --reps "$reps" \
    --out "$out" > "$out.log" 2>&1
  printf 'round %s %s bwd B=%s T=%-6s HQ=%-3s D=%-3s %s\n' "$round" "$v" "$b" "$t" "$hq" "$d" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "timing"
for round in 1 2; do
  for cfg in "1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "4 16384 64 128 5" \
             "1 32768 64 64 10" "1 32768 32 128 10" "1 32768 16 128 10"; do
    read -r b t hq d reps <<<"$cfg"
    if [[ $round == 1 ]]; then order="A B"; else order="B A"; fi
    for v in $order; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
  done
  ab_el "round $round done"
done
ab_save
ab_el done
