#!/usr/bin/env bash
# Forty-seventh session, call 2, on main's kernels (the forty-sixth session's main.fatbin and spans-engine.jar, which
# are main 0e78ef1's build; nothing in the engine or kernels changed after it):
#  1. issue 12's table (frontier-table.sh from this checkout, FT_ROUNDS rounds (3) within FT_LIMIT seconds (330): saw
#     and cuDNN / the ragged peers side by side, alternating who goes first), the first since the row spans landed in
#     the forty-fifth session;
#  2. what this GPU's memory moves at best (torch: a 1 GiB copy, and addcmul over four 512 MiB bf16 tensors, three
#     read and one written as in a forward's Q, K, V and O), the roof against which the 64-documents forward's
#     compulsory bytes are read.
# Carry .gpc (pack.tar.xz: .gpupack with var/three.tar.xz and var/spans-engine.jar, as call 1):
#   tar xJf .gpc/pack.tar.xz && bash docs/results/gpu-2026-12-07j/call2/driver.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
xz -dc .gpupack/var/three.tar.xz | tar xf - -C /tmp main.fatbin
sha256sum /tmp/main.fatbin .gpupack/var/spans-engine.jar
ab_pack /tmp/pm /tmp/main.fatbin main-0e78ef1 "$ab_root/.gpupack/var/spans-engine.jar"
cp bench/gpu/frontier-table.sh bench/gpu/frontier_table.py bench/gpu/specs-lib.sh bench/gpu/varlen_peers.py \
  bench/gpu/ragged_rows.py /tmp/pm/
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
ab_el "issue 12: frontier table, ${FT_ROUNDS:-3} rounds"
OUT="$ab_res" FT_ROUNDS=${FT_ROUNDS:-3} timeout -k 5 "${FT_LIMIT:-330}" /tmp/pm/frontier-table.sh \
  > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
ab_save
cat "$ab_res/frontier/table.txt"
ab_el done
