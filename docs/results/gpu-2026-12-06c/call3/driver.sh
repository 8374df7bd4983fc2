#!/usr/bin/env bash
# Call 3 (twenty-ninth session). The ring (calls 1-2) lost; two cheaper cuts of the backward's passes instead
# (branch bwd-passes): bwd_pre zeroes its row of the dQ accumulator (no memset of 4 bytes per dQ element of its own)
# and bwd_dq converts eight values a thread instead of two; they serve the dense, ring and NSA backwards alike.
# A = main 0b94461 (old.fatbin + old-engine.jar), B = bwd-passes (p1.fatbin + the pack's engine jar), and last
# session's prepared NSA_BWD_STREAMED builds of main's kernels (S0: no evict_first in the NSA backward; S1 and S2 did
# not fit the 64 MiB carry). First B's checks (every kernel family's verify cases and
# sanitizers: bwd_pre and bwd_dq are shared), then NSA timing, then issue 12's dense rows A vs B.
#   bash docs/results/gpu-2026-12-06c/call3/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d3
for f in old p1 s0; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ls -l /tmp/*.fatbin
ab_pack /tmp/pa /tmp/old.fatbin main-0b94461 .gpupack/var/old-engine.jar
ab_pack /tmp/pb /tmp/p1.fatbin bwd-passes
ab_pack /tmp/ps0 /tmp/s0.fatbin streamed-0 .gpupack/var/old-engine.jar
declare -A packs=([A]=/tmp/pa [B]=/tmp/pb [S0]=/tmp/ps0)
ab_el "checks of B"
OUT=$ab_res/check NSA_PARTS=verify NSA_VERIFY=quick timeout -k 5 170 /tmp/pb/nsa-run.sh > "$ab_res/verify.out" 2>&1 &
nsa=$!
ab_checks /tmp/pb
wait $nsa; echo "nsa verify rc=$?"; grep -E 'verify matrix|failed:|FAIL' "$ab_res/verify.out" | head -20
grep -h "verify pb\|rc=" "$ab_res"/verify/*.log | grep -c "rc=0" ; grep -L "rc=0" "$ab_res"/verify/*.log
row() { # BUILD B T HQ D REPS
  local v=$1 b=$2 t=$3 hq=$4 d=$5 reps=$6 out="$ab_res/ab/$1-b$2-t$3-hq$4-d$5-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random --batch "$b" --seq "$t" \
    --heads "$hq" --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 \
    --reps "$reps" --out "$out" > "$out.log" 2>&1
  printf 'round %s %-3s bwd B=%s T=%-6s HQ=%-3s D=%-3s %s\n' "$round" "$v" "$b" "$t" "$hq" "$d" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "NSA timing"
for round in 1 2; do
  for cfg in "1 65536 64 128 5|A B S0" "1 32768 64 128 10|A B S0" "2 65536 64 128 3|A B" "1 8192 64 128 10|A B" \
             "1 32768 32 128 10|A B"; do
    IFS='|' read -r shape builds <<<"$cfg"; read -r b t hq d reps <<<"$shape"
    order=$builds; [[ $round == 2 ]] && order=$(echo "$builds" | tr ' ' '\n' | tac | tr '\n' ' ')
    for v in $order; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
  done
  ab_el "round $round done"
done
ab_el "dense rows (issue 12), A vs B"
ab_rounds 2 /tmp/pa A /tmp/pb B causal-8k-d128 causal-16k-d128 causal-16k-d64 docs8-8k-d128
ab_save
ab_el done
