#!/usr/bin/env bash
# NSA selected attention on the H200 (issue 14), about 4 minutes with every part; the final check below is meant for
# ~100-150 s (estimated from the earlier runs' parts, not yet timed as a whole):
#   1. verify     saw verify --nsa over a matrix (block 32/64/128, S 1..32, G 1..48, D 64/128, bf16/fp16, softcap,
#                 random, scored and mask selections), forward and backward against the fp64 reference: the default
#                 order (auto: per-block for G <= 8; above, the shared walk at D = 128 and 64 where tokens share
#                 blocks, else warp) and each order explicitly where auto does not give it; the per-block forward's
#                 and the backward's kernels as auto picks them (SAW_NSA_FAMILY: the warpgroup kernels at blocks 64
#                 and 128 on Hopper, mma.sync elsewhere), and mma.sync explicitly on five such cases.
#                 NSA_VERIFY=quick: 16 of the cases, every order; NSA_VERIFY_SKIP=N leaves out the first N
#   2. sanitizer  compute-sanitizer on small cases: block forward + chunked backward (G = 4, block 32), warp forward
#                 + chunked backward (G = 24: two warps per token, one padded) and the warpgroup backward (block 64,
#                 G = 24 and G = 4; block 128, G = 24; softcap), the shared walk (G = 8, D = 128 and 64); NSA_SAN_TOOLS
#                 picks the tools (memcheck racecheck synccheck)
#   3. compare    side by side with fla-core 0.5.2's ParallelNSAFunction (PYTHONPATH must reach it, e.g. /tmp/site):
#                 the same block_indices .npy for both; outputs and gradients cross-checked on one shape from
#                 `saw dump` in each order of NSA_COMPARE_ORDERS (default "warp block shared"); medians of saw's
#                 CUDA-event timings and fla's triton do_bench; useful TFLOP/s = 4*D*pairs*HQ/t (backward 2.5x);
#                 the per-block forward and the backward timed in each family of NSA_FAMILIES (default "wgmma mma",
#                 SAW_NSA_FAMILY). NSA_SHAPES:
#                 all (default), quick (T=64K G=16, G=4, G=8, D=64), groups (G = 1, 2, 4, 8, 16 at T=32K, for the
#                 order crossover), final (T=64K G=16 and T=32K G=8), list (NSA_SHAPE_LIST="B,T,HQ,Hkv,D,block,S;...").
#                 NSA_COMPARE_SELECTION: random (default, as fla's own benchmark draws them) or scored (top-S of block
#                 scores from a drifting query, saw's `scored` construction drawn in torch: neighbours choose alike).
#                 Rows while NSA_COMPARE_SECONDS lasts; the
#                 whole part is cut at NSA_COMPARE_TIMEOUT (170 s), keeping the rows done (compare-summary.txt).
#   4. scored     the T=32K G=16 shape on a top-S-of-block-scores selection, in the block order and auto (the shared walk)
# The final check: NSA_PARTS="verify sanitizer compare" NSA_VERIFY=quick NSA_SAN_TOOLS=memcheck NSA_SHAPES=final \
#                  NSA_COMPARE_TIMEOUT=120 ./nsa-run.sh
# Runs from a folder made by bench/gpu-pack.sh. Logs: $OUT/nsa/ (verify.log, sanitizer.log, compare.log,
# saw-bench.jsonl, compare.json). Prints a summary table last. NSA_PARTS="verify sanitizer compare scored" picks parts.
set -uo pipefail
parts=" ${NSA_PARTS:-verify sanitizer compare scored} "
part() { [[ $parts == *" $1 "* ]]; }
here=$(cd "$(dirname "$0")" && pwd)
logs=${OUT:-$here}/nsa
mkdir -p "$logs"
export SAW_JAVA_OPTS=${SAW_JAVA_OPTS:--Xmx24g}
unset SAW_NSA_FWD SAW_NSA_FAMILY
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary="$logs/summary.txt"
: >"$summary"

# ---- 1. verify matrix -------------------------------------------------------------------------------------------
if part verify; then
vlog="$logs/verify.log"; : >"$vlog"
vpass=0; vfail=0; vfailed=(); vseen=0
full() { [[ ${NSA_VERIFY:-all} != quick ]]; }
# v [order] ARGS: saw verify fwd,bwd in that forward order (auto when "-"), the selection and shape from ARGS, the
# kernel family $fam (auto unless set), cut after VLIMIT seconds (60 unless set); the first NSA_VERIFY_SKIP cases (0)
# are left out, to finish a matrix that a call's time limit cut (verify.log lists the cases that ran)
fam=auto
v() {
  local order=$1 o rc; shift
  vseen=$((vseen + 1))
  (( vseen > ${NSA_VERIFY_SKIP:-0} )) || return 0
  [[ $order == - ]] && order=auto
  o=$(SAW_NSA_FWD=$order SAW_NSA_FAMILY=$fam timeout "${VLIMIT:-60}" "$here/saw" verify --backend gpu --pass fwd,bwd "$@" 2>&1); rc=$?
  local what="fwd=$order family=$fam $*"
  { echo "== $what"; echo "$o"; echo "rc=$rc"; } >>"$vlog"
  if [[ $rc == 0 ]]; then vpass=$((vpass + 1)); else vfail=$((vfail + 1)); vfailed+=("$what"); fi
  printf '%-4s %s  %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$what" \
    "$(echo "$o" | awk '$1=="O"||$1=="LSE"||$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}')"
  [[ $rc == 0 ]] || echo "$o" | tail -6
}
# auto: G = heads / kv-heads; block for G <= 8; above, the shared walk where 11-token tiles share blocks
# (NsaGpu.Forward.sharedMinSharing: 1.28 at D = 128, 1.5 at D = 64; with blocks of 32 1.5 and 3.3; most of these
# short random selections do),
# else warp
#       order  selection    block            S            G: heads/kv-heads           D               dtype        extra
full && v - --nsa random --nsa-block 64  --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 2048
        v - --nsa random --nsa-block 64  --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype fp16 --seq 2048 --softcap 30
full && v - --nsa random --nsa-block 32  --nsa-s 32 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 2000
full && v - --nsa random --nsa-block 128 --nsa-s 8  --heads 16 --kv-heads 1 --head-dim 128 --dtype fp16 --seq 2500
full && v - --nsa random --nsa-block 128 --nsa-s 32 --heads 8  --kv-heads 2 --head-dim 64  --dtype bf16 --seq 4100
full && v - --nsa random --nsa-block 32  --nsa-s 1  --heads 16 --kv-heads 4 --head-dim 64  --dtype bf16 --seq 1000
full && v - --nsa random --nsa-block 64  --nsa-s 4  --heads 8  --kv-heads 1 --head-dim 64  --dtype fp16 --seq 1500 --softcap 20
        v - --nsa random --nsa-block 64  --nsa-s 16 --heads 16 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 1999
full && v - --nsa random --nsa-block 32  --nsa-s 8  --heads 4  --kv-heads 4 --head-dim 128 --dtype fp16 --seq 1000
        v - --nsa random --nsa-block 128 --nsa-s 2  --heads 1  --kv-heads 1 --head-dim 64  --dtype bf16 --seq 3000 --softcap 10
full && v - --nsa random --nsa-block 64  --nsa-s 32 --heads 2  --kv-heads 2 --head-dim 128 --dtype bf16 --seq 2048 --batch 2
        v - --nsa random --nsa-block 32  --nsa-s 16 --heads 32 --kv-heads 1 --head-dim 64  --dtype fp16 --seq 700
full && v - --nsa random --nsa-block 128 --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 1024
full && v - --nsa random --nsa-block 64  --nsa-s 16 --heads 12 --kv-heads 4 --head-dim 64  --dtype bf16 --seq 1000
        v - --nsa random --nsa-block 64  --nsa-s 8  --heads 16 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 77
# each order on groups auto does not give it
full && v block --nsa random --nsa-block 64  --nsa-s 16 --heads 64 --kv-heads 4 --head-dim 128 --dtype bf16 --seq 2048
        v block --nsa random --nsa-block 128 --nsa-s 8  --heads 48 --kv-heads 2 --head-dim 64  --dtype fp16 --seq 1100 --softcap 30
full && v block --nsa random --nsa-block 64  --nsa-s 32 --heads 16 --kv-heads 1 --head-dim 64  --dtype bf16 --seq 3000 --softcap 30
full && v warp  --nsa random --nsa-block 32  --nsa-s 32 --heads 4  --kv-heads 1 --head-dim 128 --dtype bf16 --seq 1000
        v warp  --nsa random --nsa-block 64  --nsa-s 4  --heads 2  --kv-heads 2 --head-dim 64  --dtype fp16 --seq 777 --batch 2
full && v warp  --nsa random --nsa-block 32  --nsa-s 8  --heads 8  --kv-heads 1 --head-dim 64  --dtype fp16 --seq 1500 --softcap 20
        v warp  --nsa random --nsa-block 64  --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 2048
full && v shared --nsa random --nsa-block 32 --nsa-s 32 --heads 8  --kv-heads 2 --head-dim 64  --dtype bf16 --seq 1000
        v shared --nsa random --nsa-block 64 --nsa-s 4  --heads 2  --kv-heads 2 --head-dim 64  --dtype fp16 --seq 77 --batch 2
# selections that are not random: top-S of block scores (G = 16: the shared walk), and a mask's blocks (G = 4: block)
        v -     --nsa scored --nsa-block 64  --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096
full && v block --nsa scored --nsa-block 64  --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096
full && v warp  --nsa scored --nsa-block 64  --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096
        v shared 'and(causal,docs(700,900,400))' --nsa mask --seq 2000 --block 64x64 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16
        v -     'and(causal,docs(700,900,400))' --nsa mask --seq 2000 --block 64x64 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16
# block 64 for the warpgroup backward: G = 24 (a token's heads over two steps), one token, S past the blocks there are
        v -     --nsa random --nsa-block 64  --nsa-s 16 --heads 24 --kv-heads 1 --head-dim 128 --dtype fp16 --seq 1300 --softcap 30
full && v -     --nsa random --nsa-block 64  --nsa-s 32 --heads 4  --kv-heads 1 --head-dim 64  --dtype bf16 --seq 1
full && v -     --nsa random --nsa-block 64  --nsa-s 3  --heads 48 --kv-heads 3 --head-dim 128 --dtype bf16 --seq 5000 --batch 2
# T = 64K: a plane's fp32 dK / dV pass KV_STAGED_MIN_BYTES, so the backward is the staged variant (nsa_bwd_wgmma_*_kvs)
# (the fp64 reference takes longer there: VLIMIT seconds)
        VLIMIT=200 v - --nsa random --nsa-block 64 --nsa-s 16 --heads 1 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 65536
full && VLIMIT=200 v - --nsa random --nsa-block 64 --nsa-s 8 --heads 2 --kv-heads 1 --head-dim 128 --dtype fp16 --seq 70000 \
          --softcap 30
# block 128 (two warpgroups): G = 24, D = 64 with softcap, and a one-token selection
        v -     --nsa random --nsa-block 128 --nsa-s 6  --heads 24 --kv-heads 1 --head-dim 64  --dtype bf16 --seq 1900 --softcap 30
full && v -     --nsa random --nsa-block 128 --nsa-s 4  --heads 16 --kv-heads 4 --head-dim 128 --dtype fp16 --seq 1
# mma.sync at blocks 64 and 128, where auto would not run it on Hopper
fam=mma
        v -     --nsa random --nsa-block 64  --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 2048
full && v -     --nsa random --nsa-block 64  --nsa-s 4  --heads 8  --kv-heads 1 --head-dim 64  --dtype fp16 --seq 1500 --softcap 20
full && v warp  --nsa random --nsa-block 64  --nsa-s 4  --heads 2  --kv-heads 2 --head-dim 64  --dtype fp16 --seq 777 --batch 2
full && v -     --nsa scored --nsa-block 64  --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 --seq 4096
        v -     --nsa random --nsa-block 128 --nsa-s 8  --heads 48 --kv-heads 2 --head-dim 128 --dtype bf16 --seq 3000
fam=auto
echo "verify matrix (${NSA_VERIFY:-all}; family auto, and mma where named): $vpass passed, $vfail failed$( \
  (( ${NSA_VERIFY_SKIP:-0} > 0 )) && echo ", the first ${NSA_VERIFY_SKIP} of $vseen skipped (NSA_VERIFY_SKIP)")" \
  | tee -a "$summary"
for f in "${vfailed[@]}"; do echo "  failed: $f" | tee -a "$summary"; done
fi

# ---- 2. compute-sanitizer -----------------------------------------------------------------------------------------
slog="$logs/sanitizer.log"; : >"$slog"
if ! part sanitizer; then
  echo "compute-sanitizer: not asked for (NSA_PARTS)" | tee -a "$summary"
elif command -v compute-sanitizer >/dev/null; then
  san() {  # TOOL ORDER BLOCK ARGS (the family as auto picks it: blocks 64 and 128 are the warpgroup kernels on Hopper)
    local tool=$1 order=$2 block=$3; shift 3
    local what="$tool fwd $order, block $block ($([[ $block != 32 ]] && echo wgmma || echo mma.sync) family) $*"
    o=$(SAW_NSA_FWD=$order timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 "$here/runtime/bin/java" \
        -cp "$here/lib/*" saw.app.Main verify --nsa random --seq 300 --dtype bf16 --nsa-block $block --nsa-s 6 --backend gpu \
        --softcap 20 --pass fwd,bwd "$@" 2>&1); rc=$?
    { echo "== $what"; echo "$o"; } >>"$slog"
    echo "compute-sanitizer $what: rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)" \
      | tee -a "$summary"
  }
  for tool in ${NSA_SAN_TOOLS:-memcheck racecheck synccheck}; do
    san $tool block 32 --heads 8 --kv-heads 2 --head-dim 64
    san $tool warp 32 --heads 24 --kv-heads 1 --head-dim 128
    san $tool warp 64 --heads 24 --kv-heads 1 --head-dim 128
    san $tool block 64 --heads 8 --kv-heads 2 --head-dim 64
    san $tool warp 128 --heads 24 --kv-heads 1 --head-dim 128
    san $tool shared 64 --heads 16 --kv-heads 2 --head-dim 128
    san $tool shared 64 --heads 16 --kv-heads 2 --head-dim 64
  done
else
  echo "compute-sanitizer not found" | tee -a "$summary"
fi

# ---- 3. side by side with fla -------------------------------------------------------------------------------------
cat >"$work/compare.py" <<'PY'
# saw vs fla-core 0.5.2 ParallelNSAFunction on the same block_indices; see nsa-run.sh.
import json, math, os, subprocess, sys, time
import numpy as np
import torch

saw, work, logs = sys.argv[1], sys.argv[2], sys.argv[3]
log = open(os.path.join(logs, "compare.log"), "a")
kept = open(os.path.join(logs, "compare-summary.txt"), "w")  # cross-checks and the table, line by line (a timeout
def say(*a, keep=False):                                       # keeps the rows done so far)
    s = " ".join(str(x) for x in a)
    print(s, flush=True); log.write(s + "\n"); log.flush()
    if keep:
        kept.write(s + "\n"); kept.flush()

try:
    from fla.ops.nsa.parallel import ParallelNSAFunction
    import fla
    say("fla-core", getattr(fla, "__version__", "?"), "from", os.path.dirname(fla.__file__))
except Exception as e:  # the table still gets saw's numbers
    ParallelNSAFunction = None
    say("fla not importable:", repr(e))
from triton.testing import do_bench

dev = "cuda"
def top_s(r, S, nb):
    """The S best blocks per token (r: [B, T, H, nb] scores, -inf where a block may not be chosen), ascending, -1
    padded, with their counts."""
    B, T, H = r.shape[:3]
    top = r.topk(min(S, nb), dim=-1)
    idx = torch.where(top.values > -math.inf, top.indices, torch.full_like(top.indices, -1))
    idx = torch.where(idx < 0, torch.full_like(idx, nb + 1), idx).sort(dim=-1).values
    idx = torch.where(idx > nb, torch.full_like(idx, -1), idx)
    if idx.shape[-1] < S:
        idx = torch.cat([idx, torch.full((B, T, H, S - idx.shape[-1]), -1, device=dev, dtype=idx.dtype)], -1)
    cnt = (idx >= 0).sum(-1)
    return idx.to(torch.int32), cnt.to(torch.int32)

def causal_scores(r, T, BS):
    """r with blocks past each token's own at -inf and its own block first (+inf): NSA's causal rule."""
    nb = r.shape[-1]
    own = (torch.arange(T, device=dev) // BS)[None, :, None, None]
    blk = torch.arange(nb, device=dev)[None, None, None, :]
    r = torch.where(blk <= own, r, torch.full_like(r, -math.inf))
    return torch.where(blk == own, torch.full_like(r, math.inf), r)

def random_indices(B, T, H, S, BS, seed):
    """Random causal top-S per token with its own block, ascending, -1 padded: saw's `random` rule, drawn on the GPU."""
    g = torch.Generator(device=dev).manual_seed(seed)
    nb = (T + BS - 1) // BS
    if B * T * H * nb > 2**31:
        raise SystemExit("selection too large to draw")
    r = torch.rand(B, T, H, nb, device=dev, generator=g)
    return top_s(causal_scores(r, T, BS), S, nb)

def scored_indices(B, T, H, S, BS, seed, dim=16):
    """Top-S of block scores, saw's `scored` rule drawn on the GPU (the same construction, not the same numbers):
    per (batch, kv head) gaussian block keys; a query that drifts, d_t = 0.98 d_(t-1) + 0.2 e_t, q_t = d_t + 0.5 n_t,
    so neighbouring tokens choose alike, as selections from real block scores do."""
    g = torch.Generator(device=dev).manual_seed(seed)
    nb = (T + BS - 1) // BS
    if B * T * H * nb > 2**31:
        raise SystemExit("selection too large to draw")
    keys = torch.randn(B, H, nb, dim, device=dev, generator=g, dtype=torch.float64)
    d = torch.randn(B, H, dim, device=dev, generator=g, dtype=torch.float64)
    e = torch.randn(B, H, T, dim, device=dev, generator=g, dtype=torch.float64)
    n = torch.randn(B, H, T, dim, device=dev, generator=g, dtype=torch.float64)
    L = 256  # the recurrence a chunk at a time: powers of 0.98 over at most L - 1 steps
    k = torch.arange(L, device=dev, dtype=torch.float64)
    lower = torch.tril(0.98 ** (k[:, None] - k[None, :]).clamp_min(0))
    carry = 0.98 ** (k + 1)
    drift = torch.empty_like(e)
    for c0 in range(0, T, L):
        m = min(L, T - c0)
        drift[:, :, c0:c0 + m] = carry[:m, None] * d[:, :, None, :] + 0.2 * lower[:m, :m] @ e[:, :, c0:c0 + m]
        d = drift[:, :, c0 + m - 1]
    q = drift + 0.5 * n
    r = (q @ keys.transpose(-1, -2)).permute(0, 2, 1, 3).float()  # [B, T, H, nb]
    del keys, e, n, drift, q
    return top_s(causal_scores(r, T, BS), S, nb)

selection = os.environ.get("NSA_COMPARE_SELECTION", "random")
if selection not in ("random", "scored"):
    raise SystemExit(f"NSA_COMPARE_SELECTION is '{selection}'; it must be random or scored")
indices = random_indices if selection == "random" else scored_indices

def saw_bench(idx_path, cnt_path, HQ, D, BS, dtype, reps, order, passes, family="auto"):
    out = os.path.join(work, "row.jsonl")
    cmd = [saw, "bench", "--nsa", idx_path, "--nsa-counts", cnt_path, "--nsa-block", str(BS), "--heads", str(HQ),
           "--head-dim", str(D), "--dtype", dtype, "--backend", "gpu", "--pass", passes, "--warmup", "3",
           "--reps", str(reps), "--out", out]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=150,
                       env=dict(os.environ, SAW_NSA_FWD=order, SAW_NSA_FAMILY=family))
    log.write(f"SAW_NSA_FWD={order} SAW_NSA_FAMILY={family} " + " ".join(cmd) + "\n" + p.stdout + p.stderr + "\n")
    log.flush()
    if p.returncode != 0:
        say(f"saw bench failed (fwd {order}, family {family}):", p.stderr.strip()[-400:])
        return None
    rows = [json.loads(l) for l in open(out)]
    with open(os.path.join(logs, "saw-bench.jsonl"), "a") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return {r["pass"]: r for r in rows}

def fla_times(q, k, v, idx, cnt, BS, scale):
    """fla's forward and backward medians (ms) or the error it raised."""
    if ParallelNSAFunction is None:
        return None, None, "fla missing"
    bi = idx.to(torch.long)
    bc = cnt.to(torch.long)
    try:
        q = q.detach().requires_grad_(True); k = k.detach().requires_grad_(True); v = v.detach().requires_grad_(True)
        fwd = lambda: ParallelNSAFunction.apply(q, k, v, bi, bc, BS, scale, None)
        o = fwd()
        do = torch.randn_like(o)
        o.backward(do, retain_graph=True)
        tf = do_bench(fwd, warmup=25, rep=100, return_mode="median")
        tb = do_bench(lambda: o.backward(do, retain_graph=True), warmup=25, rep=100, grad_to_none=[q, k, v],
                      return_mode="median")
        return tf, tb, ""
    except Exception as e:
        return None, None, (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:200]

def cross_check(B, T, HQ, H, D, BS, S, dtype, orders, fams):
    """saw dump (GPU) in each forward order (in the first family) and in each other family (in each order) on one
    selection, fla on the very same q, k, v, dO and indices; relative errors per run (the dumps share the seed, so q,
    k, v and dO are the same for every run)."""
    tdt = torch.bfloat16 if dtype == "bf16" else torch.float16
    idx, cnt = indices(B, T, H, S, BS, 7)
    ip, cp = os.path.join(work, "xi.npy"), os.path.join(work, "xc.npy")
    np.save(ip, idx.cpu().numpy()); np.save(cp, cnt.cpu().numpy())
    dumps = {}
    for order, fam in [(o, fm) for fm in fams for o in orders]:
        d = os.path.join(work, "dump-" + order + "-" + fam)
        cmd = [saw, "dump", "--nsa", ip, "--nsa-counts", cp, "--nsa-block", str(BS), "--heads", str(HQ), "--head-dim",
               str(D), "--dtype", dtype, "--backend", "gpu", "--pass", "bwd", "--seed", "3", "--out", d]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=150,
                           env=dict(os.environ, SAW_NSA_FWD=order, SAW_NSA_FAMILY=fam))
        log.write(f"SAW_NSA_FWD={order} SAW_NSA_FAMILY={fam} " + " ".join(cmd) + "\n" + p.stdout + p.stderr + "\n")
        if p.returncode != 0:
            say(f"saw dump failed (fwd {order}, family {fam}):", p.stderr.strip()[-400:])
        else:
            dumps[f"forward {order}, family {fam}"] = d
    if not dumps or ParallelNSAFunction is None:
        return {}
    ld = lambda d, n: torch.from_numpy(np.load(os.path.join(d, n + ".npy"))).to(dev)
    # saw is [B, heads, T, D]; fla is [B, T, heads, D]
    first = next(iter(dumps.values()))
    q, k, v, do = (ld(first, n).transpose(1, 2).contiguous().to(tdt) for n in ("q", "k", "v", "do"))
    q.requires_grad_(True); k.requires_grad_(True); v.requires_grad_(True)
    o = ParallelNSAFunction.apply(q, k, v, idx.to(torch.long), cnt.to(torch.long), BS, D ** -0.5, None)
    o.backward(do)
    got = {"O": o, "dQ": q.grad, "dK": k.grad, "dV": v.grad}
    res = {}
    for order, d in dumps.items():
        res[order] = {}
        for name, f in (("O", "o"), ("dQ", "dq"), ("dK", "dk"), ("dV", "dv")):
            mine = ld(d, f).transpose(1, 2).float()
            theirs = got[name].float()
            res[order][name] = ((mine - theirs).norm() / theirs.norm().clamp_min(1e-30)).item()
    return res

orders = os.environ.get("NSA_COMPARE_ORDERS", "warp block shared").split()
fams = os.environ.get("NSA_FAMILIES", "wgmma mma").split()
# forward columns: the warp order is mma.sync only; the per-block order in each family
fwdcols = [(o + "/" + fm if o == "block" else o, o, fm) for o in orders for fm in (fams if o == "block" else fams[:1])]
label = lambda o: o + "/" + fams[0] if o == "block" else o
rows = []
for run, xc in cross_check(1, 4096, 64, 4, 128, 64, 16, "bf16", orders, fams).items():
    say(f"cross-check saw ({run}) vs fla, B=1 T=4096 HQ=64 Hkv=4 D=128 block 64 S=16 bf16, "
        "relative error:", "  ".join(f"{k} {v:.2e}" for k, v in xc.items()), keep=True)

shapes = [  # B, T, HQ, H, D, BS, S
    # B=4 at T=64K is left out: Q would hold 2^31 elements, past saw's host array limit (AttentionInputs.qSize)
    (1, 8192, 64, 4, 128, 64, 16), (1, 32768, 64, 4, 128, 64, 16), (1, 65536, 64, 4, 128, 64, 16),
    (2, 65536, 64, 4, 128, 64, 16), (4, 16384, 64, 4, 128, 64, 16),
    (1, 32768, 64, 4, 64, 64, 16),                                   # D = 64
    (1, 32768, 32, 4, 128, 64, 16), (1, 32768, 16, 4, 128, 64, 16),  # G = 8, G = 4
]
if os.environ.get("NSA_SHAPES", "all") == "quick":  # the first round: the headline shape, then G = 4, G = 8, D = 64
    shapes = [(1, 65536, 64, 4, 128, 64, 16), (1, 32768, 16, 4, 128, 64, 16), (1, 32768, 32, 4, 128, 64, 16),
              (1, 32768, 64, 4, 64, 64, 16)]
if os.environ.get("NSA_SHAPES", "all") == "groups":  # where each forward order wins: G = 1, 2, 4, 8 at T=32K, then G = 16
    shapes = [(1, 32768, 4, 4, 128, 64, 16), (1, 32768, 8, 4, 128, 64, 16), (1, 32768, 16, 4, 128, 64, 16),
              (1, 32768, 32, 4, 128, 64, 16), (1, 32768, 64, 4, 128, 64, 16), (1, 32768, 16, 4, 64, 64, 16)]
if os.environ.get("NSA_SHAPES", "all") == "final":  # the headline shape against fla, then G = 8 (where fla does not run)
    shapes = [(1, 65536, 64, 4, 128, 64, 16), (1, 32768, 32, 4, 128, 64, 16)]
if os.environ.get("NSA_SHAPES", "all") == "list":  # NSA_SHAPE_LIST="B,T,HQ,Hkv,D,block,S;..."
    shapes = [tuple(int(x) for x in sh.split(",")) for sh in os.environ["NSA_SHAPE_LIST"].split(";") if sh.strip()]
bwd_order = orders[0]  # the backward does not depend on the forward order; timed in the first order's run
def f(x, fmt="{:.2f}"):
    return "-" if x is None else fmt.format(x)

def table_row(r):
    fl = 4.0 * r["D"] * r["pairs"] if r["pairs"] else None
    sp = lambda a, b: None if a is None or b is None else b / a
    tfs = lambda ms, m: None if ms is None or fl is None else m * fl / (ms * 1e-3) / 1e12
    times = {c: r["saw_fwd_" + c] for c, _, _ in fwdcols if r["saw_fwd_" + c] is not None}
    auto = times.get(r["rule"])
    mark = "!" if auto is not None and min(times.values()) < auto else " "
    return (f"{r['B']:>2} {r['T']:>6} {r['HQ']:>3} {r['G']:>2} {r['D']:>3} {f(r['sharing']):>5} | " +
            " ".join(f"{f(r['saw_fwd_' + c]):>11}" for c, _, _ in fwdcols) + f" {r['rule'] + mark:>12} "
            f"{f(r['fla_fwd']):>8} {f(sp(auto, r['fla_fwd'])):>5} {f(tfs(auto, 1), '{:.0f}'):>6} | " +
            " ".join(f"{f(r['saw_bwd_' + b]):>9}" for b in fams) + f" {f(r['fla_bwd']):>8} "
            f"{f(sp(r['saw_bwd'], r['fla_bwd'])):>5} {f(tfs(r['saw_bwd'], 2.5), '{:.0f}'):>6} | {r['fla_error'][:60]}")

say(f"NSA selected attention, bf16, {selection} selections, {torch.cuda.get_device_name()}: saw vs fla-core 0.5.2 "
    "ParallelNSAFunction "
    "(median ms; forward order/family = "
    "SAW_NSA_FWD / SAW_NSA_FAMILY; share = choices per block the shared walk loads over 11-token tiles; "
    "auto = the order auto runs (saw bench's auto_forward), ! when another measured faster; x = fla / auto; "
    "backward per family, x and TF/s for " + fams[0] + "; TFLOP/s useful)", keep=True)
say(f"{'B':>2} {'T':>6} {'HQ':>3} {'G':>2} {'D':>3} {'share':>5} | " + " ".join(f"{c:>11}" for c, _, _ in fwdcols) +
    f" {'auto':>12} {'fla fwd':>8} {'x':>5} {'TF/s':>6} | " + " ".join(f"{'bwd ' + b:>9}" for b in fams) +
    f" {'fla bwd':>8} {'x':>5} {'TF/s':>6} | fla note", keep=True)
budget = time.time() + float(os.environ.get("NSA_COMPARE_SECONDS", "110"))
for (B, T, HQ, H, D, BS, S) in shapes:
    if time.time() > budget:
        say(f"skipped B={B} T={T} HQ={HQ} H={H} D={D}: out of time", keep=True); continue
    idx, cnt = indices(B, T, H, S, BS, B * 1000003 + T)
    ip, cp = os.path.join(work, "i.npy"), os.path.join(work, "c.npy")
    np.save(ip, idx.cpu().numpy()); np.save(cp, cnt.cpu().numpy())
    reps = 10 if B * T <= 65536 else 5
    first = fwdcols[0][0]  # bwd_order in the first family: its run times the backward too
    runs = {c: saw_bench(ip, cp, HQ, D, BS, "bf16", reps, o, "fwd,bwd" if c == first else "fwd", fm)
            for c, o, fm in fwdcols}
    back = {fams[0]: runs[first]}
    for b in fams[1:]:
        back[b] = saw_bench(ip, cp, HQ, D, BS, "bf16", reps, bwd_order, "bwd", b)
    s = runs[first]
    anyrun = next((x for x in runs.values() if x), None)
    q = torch.randn(B, T, HQ, D, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    tf, tb, err = fla_times(q, k, v, idx, cnt, BS, D ** -0.5)
    del q, k, v; torch.cuda.empty_cache()
    sharing = anyrun["fwd"].get("walk_sharing") if anyrun else None
    r = dict(B=B, T=T, HQ=HQ, H=H, G=HQ // H, D=D, block=BS, S=S, sharing=sharing,
             pairs=anyrun["fwd"]["selected_pairs"] if anyrun else None,
             saw_bwd=s["bwd"]["median_ms"] if s else None, rule=label(anyrun["fwd"]["auto_forward"]) if anyrun else "-",
             kernels={c: x["fwd"].get("kernel") for c, x in runs.items() if x},
             bwd_kernels={b: x["bwd"].get("kernel") for b, x in back.items() if x},
             fla_fwd=tf, fla_bwd=tb, fla_error=err)
    for c, _, _ in fwdcols:
        r["saw_fwd_" + c] = runs[c]["fwd"]["median_ms"] if runs[c] else None
    for b in fams:
        r["saw_bwd_" + b] = back[b]["bwd"]["median_ms"] if back[b] else None
    rows.append(r)
    log.write(json.dumps(r) + "\n")
    say(table_row(r), keep=True)
    json.dump(rows, open(os.path.join(logs, "compare.json"), "w"), indent=1)

PY
if part compare; then
echo
: >"$logs/compare-summary.txt"
timeout "${NSA_COMPARE_TIMEOUT:-170}" python3 "$work/compare.py" "$here/saw" "$work" "$logs" \
  || echo "compare.py: rc=$? (compare.log)" | tee -a "$summary"
cat "$logs/compare-summary.txt" >>"$summary"
fi
if part scored; then
# the same shape with a selection whose neighbouring tokens agree (top-S of block scores), in both orders (saw only:
# fla's time does not depend on sharing); auto at G = 16 picks the shared walk here (sharing 3.56 over 11-token tiles)
o=$(SAW_NSA_FWD=block timeout 60 "$here/saw" bench --nsa scored --seq 32768 --heads 64 --kv-heads 4 --head-dim 128 \
    --nsa-s 16 --nsa-block 64 --backend gpu --pass fwd --warmup 3 --reps 10 --out "$logs/saw-scored-block.jsonl" 2>&1)
echo "$o" | tee -a "$summary"
o=$(SAW_NSA_FWD=auto timeout 60 "$here/saw" bench --nsa scored --seq 32768 --heads 64 --kv-heads 4 --head-dim 128 --nsa-s 16 --nsa-block 64 \
    --backend gpu --pass fwd,bwd --warmup 3 --reps 10 --out "$logs/saw-scored.jsonl" 2>&1)
echo "$o" | tee -a "$summary"
fi
echo
echo "== summary ($logs)"
cat "$summary"
