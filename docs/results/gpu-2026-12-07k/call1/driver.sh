#!/usr/bin/env bash
# Forty-eighth session, call 1, on main's build (bench/gpu-pack.sh of 67c9c82, whose kernels are the forty-fifth
# session's: the row spans landed then, nothing in the engine or kernels changed after):
#  1. what this GPU's memory moves at best (torch: a 1 GiB copy, and addcmul over four 512 MiB bf16 tensors, three
#     read and one written as in a forward's Q, K, V and O), the roof against which the 64-documents forward's
#     compulsory bytes are read;
#  2. issue 12's table (frontier-table.sh, FT_ROUNDS rounds (4) within FT_LIMIT seconds (300): saw and cuDNN / the
#     ragged peers side by side, alternating who goes first), the first since the row spans landed;
#  3. saw against FlexAttention as its users run it (flex-compare.sh, default compile mode on every row; it resumes,
#     so call 2 can finish what this call's time does not), until FC_DEADLINE seconds (560) from the start.
# Carry .gpc (pack.tar.xz: the .gpupack folder):
#   tar xJf .gpc/pack.tar.xz && bash docs/results/gpu-2026-12-07k/call1/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c1
cat .gpupack/saw | grep SAW_GIT_COMMIT
sha256sum .gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar
cat >"$ab_res/hbm_roof.py" <<'PY'
# what the memory moves at best: median of 10 CUDA-event timings after 3, each on tensors far past the L2 cache
import torch
def median_ms(fn):
    ts = []
    for i in range(13):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort()
    return (ts[4] + ts[5]) / 2
print(torch.cuda.get_device_name(), torch.__version__)
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
ms = median_ms(lambda: y.copy_(x))
print(f"copy 1 GiB: {ms:.3f} ms, {2 * (1 << 30) / ms / 1e9:.3f} TB/s (read + written)")
del x, y
n = 1 << 28
a, b, c, d = (torch.randn(n, dtype=torch.bfloat16, device="cuda") for _ in range(4))
ms = median_ms(lambda: torch.addcmul(a, b, c, out=d))
print(f"addcmul 3 x 512 MiB read, 512 MiB written: {ms:.3f} ms, {8 * n / ms / 1e9:.3f} TB/s")
PY
ab_el "memory roof"
timeout 120 python3 "$ab_res/hbm_roof.py" 2>&1 | tee "$ab_res/hbm_roof.txt"
ab_el "issue 12: frontier table, ${FT_ROUNDS:-4} rounds"
OUT="$ab_res" FT_ROUNDS=${FT_ROUNDS:-4} timeout -k 5 "${FT_LIMIT:-300}" .gpupack/frontier-table.sh \
  > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
ab_save
cat "$ab_res/frontier/table.txt"
left=$(( ${FC_DEADLINE:-560} - ($(date +%s) - ab_t0) ))
ab_el "flex-compare, default mode, ${left} s"
if (( left > 60 )); then
  OUT="$ab_res" PYTHONPATH=$PWD/python AUTOTUNE_ROWS=none timeout -k 5 "$left" .gpupack/flex-compare.sh \
    > "$ab_res/flex-compare.out" 2>&1
  echo "flex-compare rc=$?"
fi
ab_save
tail -n 40 "$ab_res/flex-compare.out" 2>/dev/null
ab_el done
