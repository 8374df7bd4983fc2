#!/usr/bin/env bash
# Not run (twenty-eighth session: device time spent). The T = 64K NSA backward is 1.96-1.98x fla on the H100, 1-2%
# under issue 14's 2x. Since call 6 the backward's items alternate the kv-block direction per token chunk, so a chunk
# starts on the blocks whose K / V and dK / dV lines the previous chunk touched last; but those accesses are
# evict_first (call 3 chose that before the alternating order existed), which may throw away exactly the lines the
# next chunk's first items want. This driver times the four combinations of nsa-bwd-streamed.patch's macro
# (bit 0: K / V copies evict_first, bit 1: dK / dV adds evict_first; 3 = main) at T = 64K (B = 1, 2), 32K and 8K.
# Build here (about 2 min each, sm_90a only, from a checkout of main with the patch applied):
#   git apply docs/results/gpu-2026-12-06b/next-not-run/nsa-bwd-streamed.patch
#   cd engine/src/main/cuda && for m in 0 1 2 3; do nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -no-compress \
#     -DNSA_BWD_STREAMED=$m -gencode=arch=compute_90a,code=sm_90a -o /tmp/s$m.fatbin saw_attention.cu; done
#   git checkout -- . ; cd - ; SAW_PACK_SLIM=1 bench/gpu-pack.sh .gpupack, then strip the engine jar's fatbin entry
#   (python zipfile, as ab_pack does) and put /tmp/s{0,1,2,3}.fatbin xz -9e'd in .gpupack/var/ (the carried tree,
#   tracked files included, must stay under 64 MiB: four sm_90a fatbins are about 10 MB xz'd).
#   bash docs/results/gpu-2026-12-06b/next-not-run/driver.sh > /dev/null 2>&1; tail -c 6000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init nx
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
declare -A packs
for m in 0 1 2 3; do
  xz -dc .gpupack/var/s$m.fatbin.xz > /tmp/s$m.fatbin
  ab_pack /tmp/p$m /tmp/s$m.fatbin streamed-$m
  packs[$m]=/tmp/p$m
done
row() { # BUILD B T REPS
  local v=$1 b=$2 t=$3 reps=$4 out="$ab_res/ab/s$1-b$2-t$3-r$round.jsonl"
  SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "${packs[$v]}/saw" bench --nsa random --batch "$b" --seq "$t" --heads 64 \
    --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 --backend gpu --pass bwd --warmup 2 --reps "$reps" \
    --out "$out" > "$out.log" 2>&1
  printf 'round %s streamed=%s B=%s T=%-6s %s\n' "$round" "$v" "$b" "$t" "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)"
}
ab_el "timing"
for round in 1 2; do
  for cfg in "1 65536 5" "2 65536 3" "1 32768 10" "1 8192 10"; do
    read -r b t reps <<<"$cfg"
    for v in 3 0 1 2; do row $v "$b" "$t" "$reps"; done
  done
done
ab_el "quick verify of the fastest build (read the table; rerun with NX_CHECK=m)"
if [[ -n ${NX_CHECK:-} ]]; then
  OUT=$ab_res/check NSA_PARTS=verify NSA_VERIFY=quick timeout -k 5 150 "${packs[$NX_CHECK]}/nsa-run.sh" > "$ab_res/verify.out" 2>&1
  grep -E 'verify matrix|failed:' "$ab_res/verify.out"
fi
ab_save
ab_el done
