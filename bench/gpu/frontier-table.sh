#!/usr/bin/env bash
# Issue 12's rows in one call on the H200 (about 45 s a round; run from the pack folder's parent, e.g.
# OUT=out .gpupack/frontier-table.sh): saw's default Hopper families (forward wgmma-pp, backward wgmma-ws) at 128x128,
# forward and backward, on causal 8K and 16K (B=4 H=16), GQA 32:8 at 32K, D = 128 and 64; 64 packed documents in 32K,
# 8 documents in 8K and 16K and window 1024 at 16K (D = 128); and cuDNN SDPA forward and backward on the causal rows
# in the same call (the peer's code is written beside its numbers as cudnn.py); the documents and window rows against
# PyTorch's ragged-batch peers (varlen_peers.py: varlen_attn, and SDPA on nested jagged tensors under cuDNN). Useful
# TFLOP/s (backward 2.5x the forward's FLOPs); saw: median of FT_REPS (10) after 3 warm-ups; cuDNN and the ragged peers:
# median of 10 CUDA-event timings after 3; both sides fill 256 MiB before every timed run, as triton's do_bench does.
# FT_ROUNDS rounds (3), saw first in odd rounds and the peers first in even ones, each into $OUT/frontier/rN/; the
# table (frontier_table.py: per row and pass the medians over the rounds, their ranges, the median and worst ratio)
# goes to $OUT/frontier/table.txt and is printed last. FT_RANDOM=1 adds issue 12's random-block rows (5-100 % of 8K
# and 16K, D = 128), each beside a causal problem of about the same tiles per row and work (frontier_table.py's
# RANDOM_PAIRS), right after saw's rows in every round (about a minute a round), and their table after the first.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
dir=${OUT:-$here}/frontier
mkdir -p "$dir/specs"
log="$dir/run.log"
: >"$log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>"$log" 2>&1 || true
. "$here/specs-lib.sh"
frontier_specs "$dir/specs"
cat >"$dir/cudnn.py" <<'PY'
# the peer that ran, saved beside its numbers: cuDNN SDPA forward and backward on the causal rows, bf16, median of 10
# CUDA-event timings after 3 warm-ups. GQA rows are timed both ways cuDNN's users call it, K and V with their own heads
# and enable_gqa=True (cuDNN sums the groups' dK and dV itself), and K and V repeated to the query heads as leaves (only
# the attention timed); the faster of each pass is printed, both on a "layouts" line.
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")  # filled before each start event, as do_bench does

def median(fn):
    ts = []
    for i in range(13):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush.zero_(); a.record(); fn(); b.record(); b.synchronize()
        if i >= 3: ts.append(a.elapsed_time(b))
    ts.sort()
    return (ts[4] + ts[5]) / 2

def timings(q, k, v, do, gqa):
    kw = {"enable_gqa": True} if gqa else {}
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        with torch.no_grad():
            fwd = median(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, **kw))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, **kw)
        def bwd():
            q.grad = k.grad = v.grad = None
            out.backward(do, retain_graph=True)
        return fwd, median(bwd)

for D in (128, 64):
    for name, B, H, HKV, S in (("causal-8k", 4, 16, 16, 8192), ("causal-16k", 4, 16, 16, 16384), ("gqa-32k", 1, 32, 8, 32768)):
        try:
            g = torch.Generator(device="cuda").manual_seed(0)
            q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
            do = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
            flops = 4 * B * H * D * S * (S + 1) / 2
            runs = {}
            if HKV < H:
                try:
                    runs["native GQA"] = timings(q, k.clone().requires_grad_(), v.clone().requires_grad_(), do, True)
                except Exception as e:
                    print(f"{name}-d{D} native GQA failed: {str(e).splitlines()[0][:120]}")
                    torch.cuda.empty_cache()
            kr = k.repeat_interleave(H // HKV, 1).requires_grad_()
            vr = v.repeat_interleave(H // HKV, 1).requires_grad_()
            runs["K/V repeated" if HKV < H else "MHA"] = timings(q, kr, vr, do, False)
            fwd, bwd_ms = min(r[0] for r in runs.values()), min(r[1] for r in runs.values())
            print(f"{name}-d{D} fwd {fwd:.3f} {flops / fwd / 1e9:.1f} bwd {bwd_ms:.3f} {2.5 * flops / bwd_ms / 1e9:.1f}")
            if len(runs) > 1:
                print(f"{name}-d{D} layouts (fwd ms, bwd ms): " + "; ".join(f"{n} {f:.3f} {b:.3f}" for n, (f, b) in runs.items()))
            del q, k, v, do, kr, vr
            torch.cuda.empty_cache()
        except Exception as e:
            print(f"{name}-d{D} failed: {str(e).splitlines()[0][:120]}")
        sys.stdout.flush()
PY
saw_rows() { # ROUND_DIR
  local row sd extra sp d
  mkdir -p "$1/results"
  for row in "causal-8k 128" "causal-16k 128" "gqa-32k 128|--kv-heads 8" "causal-8k 64" "causal-16k 64" \
             "gqa-32k 64|--kv-heads 8" "docs64-32k 128" "docs8-8k 128" "docs8-16k 128" "window1024-16k 128"; do
    IFS='|' read -r sd extra <<<"$row"; read -r sp d <<<"$sd"
    # shellcheck disable=SC2086
    timeout -k 5 150 "$saw" bench "$dir/specs/$sp.json" --block 128x128 --head-dim "$d" --pass fwd,bwd \
      --reps "${FT_REPS:-10}" --warmup 3 --backend gpu --out "$1/results/$sp-d$d.jsonl" $extra >>"$log" 2>&1 \
      || echo "saw bench $sp D=$d ($1): rc=$?" | tee -a "$log"
  done
}
random_rows() { # ROUND_DIR (only with FT_RANDOM=1)
  local pairs S dens cs cb
  [[ ${FT_RANDOM:-} == 1 ]] || return 0
  mkdir -p "$1/random"
  pairs=$(python3 "$here/frontier_table.py" --pairs)
  for S in $(awk '{ print $1 }' <<<"$pairs" | sort -nu); do
    dens=$(awk -v s="$S" '$1 == s { printf "%s%s", sep, $2; sep = "," }' <<<"$pairs")
    timeout -k 5 150 "$saw" bench preset:causal --seq "$S" --batch 4 --heads 16 --head-dim 128 --block 128x128 \
      --density "$dens" --pass fwd,bwd --reps "${FT_REPS:-10}" --warmup 3 --backend gpu \
      --out "$1/random/random-$S.jsonl" >>"$log" 2>&1 || echo "saw bench random S=$S ($1): rc=$?" | tee -a "$log"
  done
  while read -r S dens cs cb; do
    timeout -k 5 150 "$saw" bench preset:causal --seq "$cs" --batch "$cb" --heads 16 --head-dim 128 --block 128x128 \
      --pass fwd,bwd --reps "${FT_REPS:-10}" --warmup 3 --backend gpu --out "$1/random/causal-$cs-b$cb.jsonl" \
      >>"$log" 2>&1 || echo "saw bench causal $cs x $cb ($1): rc=$?" | tee -a "$log"
  done <<<"$pairs"
}
saw_side() { saw_rows "$1"; random_rows "$1"; }
# the documents and window rows, which SDPA's dense masks cannot express: PyTorch's ragged-batch peers (the script
# that ran is copied beside its numbers); they take the rows' useful FLOPs from saw's first round (the same masks)
cp "$here/varlen_peers.py" "$here/ragged_rows.py" "$here/frontier_table.py" "$dir/"
peers() { # ROUND_DIR
  mkdir -p "$1"
  timeout 150 python3 "$dir/cudnn.py" >"$1/cudnn.txt" 2>>"$log" || echo "cudnn.py ($1) rc=$?" | tee -a "$log"
  timeout 200 python3 "$dir/varlen_peers.py" "$dir/specs" "$dir/r1/results" >"$1/varlen.txt" 2>>"$log" \
    || echo "varlen_peers.py ($1) rc=$?" | tee -a "$log"
}
saw_side "$dir/r1"
peers "$dir/r1"
for r in $(seq 2 "${FT_ROUNDS:-3}"); do
  if (( r % 2 == 0 )); then peers "$dir/r$r"; saw_side "$dir/r$r"; else saw_side "$dir/r$r"; peers "$dir/r$r"; fi
done
python3 "$dir/frontier_table.py" "$dir" | tee "$dir/table.txt"
