#!/usr/bin/env bash
# Call 2 (twenty-ninth session): call 1's ring was correct but 1.5-10% slower than main. Now (branch dq-ring 1f5f8b3+)
# each item takes its ring turn (conversion share, slot wait) after issuing its first copies, and counts are released
# by thread 0 after the barrier instead of a fence per thread. A = main 0b94461, B = this build with the automatic lag
# and with -Dsaw.nsa.dqLag = 3, 4, 6 (whether items wait for the unit they convert), C = B's kernels taking their item
# from blockIdx instead of a ticket (the ticket's cost; not a candidate: it relies on dispatch order). First B's checks:
# quick NSA verify, short-chunk verifies (lag 1 and the automatic one), memcheck.
#   bash docs/results/gpu-2026-12-06c/call2/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d2
for f in old r4 r5; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ls -l /tmp/*.fatbin
ab_pack /tmp/pa /tmp/old.fatbin main-0b94461 .gpupack/var/old-engine.jar
ab_pack /tmp/pb /tmp/r4.fatbin dq-ring-turn
ab_pack /tmp/pc /tmp/r5.fatbin dq-ring-blockidx
declare -A packs=([A]=/tmp/pa [B]=/tmp/pb [B3]=/tmp/pb [B4]=/tmp/pb [B6]=/tmp/pb [C]=/tmp/pc)
declare -A opts=([A]="" [B]="" [B3]="-Dsaw.nsa.dqLag=3" [B4]="-Dsaw.nsa.dqLag=4" [B6]="-Dsaw.nsa.dqLag=6" [C]="")
ab_el "checks of B"
OUT=$ab_res/check NSA_PARTS=verify NSA_VERIFY=quick timeout -k 5 170 /tmp/pb/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify.out" | head -20
pids=()
VOPTS="-Dsaw.nsa.bwdChunk=64 -Dsaw.nsa.dqLag=1" ab_verify /tmp/pb chunk64-lag1-wgmma-b64 --nsa random --nsa-block 64 \
  --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 2048 --pass fwd,bwd & pids+=($!)
VOPTS=-Dsaw.nsa.bwdChunk=100 ab_verify /tmp/pb chunk100-mma-b32 --nsa random --nsa-block 32 --nsa-s 8 --heads 16 \
  --kv-heads 4 --head-dim 64 --dtype fp16 --softcap 20 --seq 3000 --batch 2 --pass fwd,bwd & pids+=($!)
VOPTS="-Dsaw.nsa.bwdChunk=128 -Dsaw.nsa.dqLag=1" ab_verify /tmp/pb chunk128-lag1-wgmma-b128 --nsa random --nsa-block 128 \
  --nsa-s 4 --heads 24 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 2500 --pass fwd,bwd & pids+=($!)
VOPTS=-Dsaw.nsa.bwdChunk=7 ab_verify /tmp/pb chunk7-wgmma-b64 --nsa random --nsa-block 64 --nsa-s 2 --heads 4 \
  --kv-heads 2 --head-dim 128 --dtype fp16 --seq 900 --pass fwd,bwd & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
JOPTS=-Dsaw.nsa.bwdChunk=64 ab_san /tmp/pb chunk64 memcheck --nsa random --nsa-block 64 --nsa-s 16 --heads 16 \
  --kv-heads 1 --head-dim 128 --dtype bf16 --seq 1100 --pass fwd,bwd
JOPTS="-Dsaw.nsa.bwdChunk=64 -Dsaw.nsa.dqLag=1" ab_san /tmp/pb chunk64-lag1 racecheck --nsa random --nsa-block 64 \
  --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 1100 --pass fwd,bwd
row() { # BUILD B T HQ D REPS
  local v=$1 b=$2 t=$3 hq=$4 d=$5 reps=$6 out="$ab_res/ab/$1-b$2-t$3-hq$4-d$5-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g ${opts[$v]}" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random --batch "$b" --seq "$t" \
    --heads "$hq" --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 \
    --reps "$reps" --out "$out" > "$out.log" 2>&1
  printf 'round %s %-3s bwd B=%s T=%-6s HQ=%-3s D=%-3s %s\n' "$round" "$v" "$b" "$t" "$hq" "$d" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "timing: every variant on three shapes"
for round in 1 2; do
  for cfg in "1 65536 64 128 5" "1 32768 64 128 10" "1 8192 64 128 10"; do
    read -r b t hq d reps <<<"$cfg"
    if [[ $round == 1 ]]; then order="A B B3 B4 B6 C"; else order="C B6 B4 B3 B A"; fi
    for v in $order; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
  done
  ab_el "round $round done"
done
ab_el "timing: A and B (automatic lag) on the other shapes"
for round in 1 2; do
  for cfg in "2 65536 64 128 3" "4 16384 64 128 5" "1 32768 64 64 10" "1 32768 32 128 10" "1 32768 16 128 10"; do
    read -r b t hq d reps <<<"$cfg"
    if [[ $round == 1 ]]; then order="A B"; else order="B A"; fi
    for v in $order; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
  done
done
ab_save
ab_el done
