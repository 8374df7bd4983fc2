#!/usr/bin/env bash
# Call 7 (twenty-ninth session): call 6 showed the fp32 dQ adds set the NSA backward's pace (half of them left out:
# 1.2-1.35x). Branch nsa-dq-native: SAW_NSA_DQ_ACCUM=native makes the warpgroup backward add the scaled partials in
# dQ's own element type straight into dQ (bf16x2 / f16x2 vector adds, 8 bytes for 4 values instead of 16; no fp32
# accumulator, memset of it or conversion). A = main 0b94461; N = the branch with native; F = the branch at its default
# (fp32, which must time as main). N's quick NSA verify (errors against the fp64 reference, bf16 and fp16) and memcheck,
# timing, then N beside fla-core 0.5.2 at T = 64K (with fla's output cross-check at T = 4096).
#   bash docs/results/gpu-2026-12-06c/call7/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init d7
for f in old n1; do xz -dc .gpupack/var/$f.fatbin.xz > /tmp/$f.fatbin; done
ab_pack /tmp/pa /tmp/old.fatbin main-0b94461 .gpupack/var/old-engine.jar
ab_pack /tmp/pn /tmp/n1.fatbin nsa-dq-native
declare -A packs=([A]=/tmp/pa [N]=/tmp/pn [F]=/tmp/pn)
declare -A accum=([A]=fp32 [N]=native [F]=fp32)
ab_el "N's checks"
OUT=$ab_res/check SAW_NSA_DQ_ACCUM=native NSA_PARTS="verify sanitizer" NSA_VERIFY=quick NSA_SAN_TOOLS=memcheck \
  timeout -k 5 170 /tmp/pn/nsa-run.sh > "$ab_res/verify.out" 2>&1
echo "rc=$?"; grep -E 'verify matrix|failed:|FAIL|compute-sanitizer' "$ab_res/verify.out" | head -20
echo "largest relative error per tensor over N's verify cases (bf16 and fp16 together):"
grep -hE "^ *(dQ|dK|dV|O) " "$ab_res"/check/nsa/verify.log 2>/dev/null \
  | awk '{if ($2 + 0 > m[$1] + 0) m[$1] = $2} END {for (k in m) print k, m[k]}'
row() { # BUILD B T HQ D REPS
  local v=$1 b=$2 t=$3 hq=$4 d=$5 reps=$6 out="$ab_res/ab/$1-b$2-t$3-hq$4-d$5-r$round.jsonl"
  SAW_NSA_DQ_ACCUM=${accum[$v]} SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random \
    --batch "$b" --seq "$t" --heads "$hq" --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu \
    --pass bwd --warmup 2 --reps "$reps" --out "$out" > "$out.log" 2>&1
  printf 'round %s %-3s bwd B=%s T=%-6s HQ=%-3s D=%-3s %s %s\n' "$round" "$v" "$b" "$t" "$hq" "$d" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)" "$(grep -o '"kernel":"[^"]*"' "$out" | head -1)"
}
ab_el "timing"
round=1
for cfg in "1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10" "4 16384 64 128 5" \
           "1 32768 64 64 10" "1 32768 32 128 10" "1 32768 16 128 10"; do
  read -r b t hq d reps <<<"$cfg"
  for v in A N F; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
done
round=2
for cfg in "1 65536 64 128 5" "2 65536 64 128 3" "1 32768 64 128 10" "1 8192 64 128 10"; do
  read -r b t hq d reps <<<"$cfg"
  for v in N A; do row $v "$b" "$t" "$hq" "$d" "$reps"; done
done
ab_save
if [[ -d .whl ]]; then
  ab_el "N beside fla-core 0.5.2"
  python3 -m pip install --no-deps --target /tmp/site -q .whl/*.whl > "$ab_res/pip.log" 2>&1
  OUT=$ab_res/fla SAW_NSA_DQ_ACCUM=native PYTHONPATH=/tmp/site NSA_PARTS=compare NSA_SHAPES=list \
    NSA_SHAPE_LIST="1,65536,64,4,128,64,16" NSA_COMPARE_ORDERS=warp NSA_FAMILIES=wgmma NSA_COMPARE_TIMEOUT=100 \
    timeout -k 5 120 /tmp/pn/nsa-run.sh > "$ab_res/fla.out" 2>&1
  echo "rc=$?"; grep -E "cross-check|^ *[0-9]+ +[0-9]+ " "$ab_res/fla.out" | head -6
fi
ab_save
ab_el done
