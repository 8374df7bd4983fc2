#!/usr/bin/env bash
# Issue 13 on the H200 (about 3.5 minutes, at most 4; run from the repository root so that bench/compare_flex.py is found): (1) saw verify with learned sink logits (--sinks) over masks, GQA, softcap,
# both dtypes, the mma.sync tiles and the Hopper default tile 128x128, forward and backward (dSink checked);
# (2) head dim 256 forward verify (masks, GQA, softcap, sinks, both dtypes) and one forward + backward (the D=256
# backward's own matrix is d256-bwd-wgmma.sh);
# (3) sinks cross-checked in one python run: O and LSE against FlexAttention through its returned LSE
# (out_sink = out * exp(lse - logaddexp(lse, sink))), dQ/dK/dV/dSink against a dense fp32 torch autograd reference;
# (4) causal 8K with and without sinks (D=256 against FlexAttention and cuDNN, forward and backward: d256-bwd-wgmma.sh); (5) saw tune for causal, window,
# documents and random 10% at 8K-32K, tuned against default and the tune's duration. Everything goes to
# $OUT/tune-sinks-d256/ (tar that folder); a summary table is printed last. TSD_PARTS="verify sinks-flex sinks-cost tune"
# picks sections.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
saw="$here/saw"
root=${SAW_REPO:-$PWD}
dir=${OUT:-$here}/tune-sinks-d256
mkdir -p "$dir/cfg" "$dir/dumps"
log="$dir/run.log"
: >"$log"
export SAW_TUNE_CACHE="$dir/tune-cache.json"   # a fresh cache, so this run's tunes are the ones reported
summary=()
t_start=$(date +%s)
parts=" ${TSD_PARTS:-verify sinks-flex sinks-cost tune} "   # pick sections by name
part() { [[ $parts == *" $1 "* ]]; }

note() { echo "$*" | tee -a "$log"; }

# ---------------------------------------------------------------- (1) + (2) verify matrix
if part verify; then
pass=0; fail=0; failed=()
verify() {
  local out rc
  out=$(timeout 60 "$saw" verify "$@" 2>&1); rc=$?
  echo "$out" >>"$log"; echo "rc=$rc" >>"$log"
  if [[ $rc == 0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$*"); fi
  printf '%-4s %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$*"
  [[ $rc == 0 ]] || echo "$out" | tail -6
}
note "== sinks verify matrix (fwd+bwd, dSink) =="
verify causal                      --seq 1000 --heads 4               --head-dim 128 --dtype bf16 --block 128x64  --sinks
verify causal                      --seq 4096 --heads 4 --kv-heads 1  --head-dim 128 --dtype bf16 --block 128x128 --sinks
verify 'window(256)'               --seq 4096 --heads 8 --kv-heads 2  --head-dim 64  --dtype fp16 --block 128x128 --sinks --softcap 30
verify 'docs(700,1500,1200,500)'   --seq 4096 --heads 2               --head-dim 128 --dtype fp16 --block 64x32   --sinks --softcap 20
verify 'and(causal,docs(900,2000))' --seq 3000 --heads 4 --kv-heads 2 --head-dim 64  --dtype bf16 --block 64x128  --sinks
verify 'random(128,128,4,7)'       --seq 4096 --heads 4 --kv-heads 1  --head-dim 128 --dtype fp16 --block 128x128 --sinks --softcap 30
verify 'or(sinks(16),window(128,128))' --seq 1000 --seq-kv 1500 --heads 2 --head-dim 64 --dtype bf16 --block 128x32 --sinks
verify 'heads(causal,window(128),docs(300,400))' --seq 1000 --heads 6 --head-dim 128 --dtype bf16 --block 128x128 --sinks
note "== head dim 256 forward verify =="
verify causal                      --seq 2048 --heads 4               --head-dim 256 --dtype bf16 --block 64x64 --pass fwd
verify causal                      --seq 4096 --heads 8 --kv-heads 2  --head-dim 256 --dtype fp16 --block 64x64 --pass fwd --sinks
verify 'window(512)'               --seq 4096 --heads 4 --kv-heads 1  --head-dim 256 --dtype bf16 --block 64x32 --pass fwd --softcap 30
verify 'docs(700,1500,1200,500)'   --seq 4096 --heads 2               --head-dim 256 --dtype fp16 --block 64x32 --pass fwd --sinks --softcap 50
verify 'random(128,128,4,3)'       --seq 4096 --heads 4 --kv-heads 2  --head-dim 256 --dtype bf16 --block 64x64 --pass fwd --sinks
# the D=256 backward (issue 13) has its own matrix, sanitizer and timing in d256-bwd-wgmma.sh; one case here
verify causal                      --seq 1000 --seq-kv 1500 --heads 4 --kv-heads 2 --head-dim 256 --dtype bf16 --block 64x64 --sinks
summary+=("verify (sinks, D=256)|$pass passed, $fail failed")

fi
# ---------------------------------------------------------------- (3) sinks against FlexAttention + dense autograd
if part sinks-flex; then
cat >"$dir/cfg/window.json" <<'JSON'
{ "schema": "saw.mask/1", "name": "window", "seq_len_q": 1024, "seq_len_kv": 1024, "batch": 1, "heads": 4,
  "block": { "q": 128, "kv": 128 }, "mask": { "sliding_window": { "left": 200, "right": 0 } } }
JSON
cat >"$dir/cfg/docs.json" <<'JSON'
{ "schema": "saw.mask/1", "name": "docs", "seq_len_q": 1024, "seq_len_kv": 1024, "batch": 2, "heads": 4,
  "block": { "q": 128, "kv": 64 },
  "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [300, 500, 224] } } ] } }
JSON
dumps=()
for spec in "preset:causal --seq 1024 --block 128x128 --heads 4 --kv-heads 1 --dtype bf16" \
            "$dir/cfg/window.json --block 128x128 --heads 4 --kv-heads 2 --dtype fp16" \
            "$dir/cfg/docs.json --block 128x64 --heads 4 --dtype bf16"; do
  d="$dir/dumps/$(basename "${spec%% *}" .json | tr ':' '-')"
  # shellcheck disable=SC2086
  timeout 60 "$saw" dump $spec --head-dim 128 --pass bwd --backend gpu --sinks --seed 3 --out "$d" >>"$log" 2>&1 \
    && dumps+=("$d") || note "dump failed: $spec"
done
timeout 120 python3 - "${dumps[@]}" >"$dir/sinks-check.txt" 2>&1 <<'PY'
import json, math, os, sys
sys.path.insert(0, os.path.join(os.environ.get("SAW_REPO", os.getcwd()), "bench"))
import numpy as np, torch
from torch.nn.attention import flex_attention as fx
from compare_flex import mask_mod_for
dev = "cuda"
worst = 0.0
for d in sys.argv[1:]:
    meta = json.load(open(os.path.join(d, "meta.json")))
    config = json.load(open(os.path.join(d, "config.json")))
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[meta["dtype"]]
    tol = {"bf16": 1e-2, "fp16": 2e-3}[meta["dtype"]]
    ld = lambda n: torch.from_numpy(np.load(os.path.join(d, n + ".npy"))).to(dev)
    q, k, v, do, sinks = ld("q"), ld("k"), ld("v"), ld("do"), ld("sinks")
    B, H, S, D = q.shape
    Hkv = k.shape[1]
    mm = mask_mod_for(torch, config, dev)
    bm = fx.create_block_mask(mm, None, None, S, k.shape[2], device=dev)
    kw = dict(block_mask=bm, scale=meta["scale"], enable_gqa=H != Hkv)
    if hasattr(fx, "AuxRequest"):
        out, aux = fx.flex_attention(q.to(dt), k.to(dt), v.to(dt), return_aux=fx.AuxRequest(lse=True), **kw)
        lse = aux.lse
    else:
        out, lse = fx.flex_attention(q.to(dt), k.to(dt), v.to(dt), return_lse=True, **kw)
    s = sinks.view(1, H, 1)
    res = {}
    for name, l in (("natural", lse.float()), ("log2", lse.float() * math.log(2))):
        merged = torch.logaddexp(l, s.expand_as(l))
        o_s = out.float() * torch.exp(l - merged)[..., None]
        e_o = float((o_s - ld("o")).norm() / ld("o").norm())
        e_l = float((merged - ld("lse")).norm() / ld("lse").norm())
        res[name] = (e_o, e_l)
    lse_units, (e_o, e_l) = min(res.items(), key=lambda kv: kv[1][0])
    # dense fp32 autograd reference with the sink as an extra column that has no value
    qf, kf, vf = (x.float().clone().requires_grad_() for x in (q, k, v))
    sf = sinks.float().clone().requires_grad_()
    kr, vr = kf.repeat_interleave(H // Hkv, 1), vf.repeat_interleave(H // Hkv, 1)
    sc = (qf @ kr.transpose(-1, -2)) * meta["scale"]
    allowed = fx.create_mask(mm, B, H, S, k.shape[2], device=dev)  # [B, H, S, Skv], per-batch and per-head masks too
    sc = sc.masked_fill(~allowed, float("-inf"))
    col = sf.view(1, H, 1, 1).expand(B, H, S, 1)
    p = torch.softmax(torch.cat([sc, col], -1), -1)[..., :-1]
    o_ref = p @ vr
    (o_ref * do.float()).sum().backward()
    grads = {"dq": qf.grad, "dk": kf.grad, "dv": vf.grad, "dsink": sf.grad}
    errs = {n: float((ld(n) - g).norm() / g.norm()) for n, g in grads.items()}
    errs["o_vs_dense"] = float((ld("o") - o_ref.detach()).norm() / o_ref.norm())
    ok = e_o <= tol and e_l <= tol and all(e <= tol for e in errs.values())
    worst = max([worst, e_o, e_l] + list(errs.values()))
    print(f"{os.path.basename(d)} {meta['dtype']} B={B} H={H} Hkv={Hkv} S={S}: {'ok' if ok else 'FAILED'} (tol {tol:g}) "
          f"flex O={e_o:.2e} LSE={e_l:.2e} (flex lse {lse_units}) " + " ".join(f"{n}={e:.2e}" for n, e in errs.items()))
print(f"worst relative error {worst:.2e}")
PY
rc=$?
cat "$dir/sinks-check.txt" | tee -a "$log"
summary+=("sinks vs flex/autograd|rc=$rc, $(grep -c ' ok ' "$dir/sinks-check.txt") of ${#dumps[@]} dumps ok; $(tail -1 "$dir/sinks-check.txt")")

fi
# ---------------------------------------------------------------- (4b) what sinks cost in a timed run
if part sinks-cost; then
for mode in plain sinks; do
  timeout 60 "$saw" bench preset:causal --seq 8192 --heads 16 --block 128x128 --pass fwd,bwd --backend gpu --no-cache \
    $([[ $mode == sinks ]] && echo --sinks) --out "$dir/causal8k-$mode.jsonl" >>"$log" 2>&1
  ms=$(python3 -c "
import json
rows=[json.loads(l) for l in open('$dir/causal8k-$mode.jsonl')][1:]
print(' '.join(f\"{r['pass']}={r['median_ms']:.3f}ms\" for r in rows if r.get('status')=='ok') or 'none')" 2>>"$log")
  summary+=("causal 8K 128x128 $mode|$ms")
done

fi
# ---------------------------------------------------------------- (5) tune: tuned vs default, tune duration
if part tune; then
mk_random() {  # random blocks at 10% of the kv-blocks of 128
  local s=$1 per=$(( $1 / 128 / 10 ))
  cat >"$dir/cfg/random-$s.json" <<JSON
{ "schema": "saw.mask/1", "name": "random10", "seq_len_q": $s, "seq_len_kv": $s, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "random_blocks": { "block": [128, 128], "per_row": $per, "seed": 7 } } }
JSON
}
cat >"$dir/cfg/window-1024.json" <<'JSON'
{ "schema": "saw.mask/1", "name": "window1024", "seq_len_q": 16384, "seq_len_kv": 16384, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "sliding_window": { "left": 1024, "right": 0 } } }
JSON
mk_random 32768
tune() {
  local label=$1; shift
  local t0 out rc
  t0=$(date +%s.%N)
  out=$(timeout 75 "$saw" tune "$@" --head-dim 128 --dtype bf16 2>&1); rc=$?
  echo "$out" >>"$log"
  local secs; secs=$(python3 -c "import time; print(f'{time.time() - $t0:.1f}')")
  echo "$out" | grep -E '^(saw tune|winner)' | sed "s/^/[$label] /"
  local fwd bwd
  fwd=$(echo "$out" | grep '^winner' | sed -n 1p | sed -E 's/^winner ([^:]*): ([0-9.]+) ms.*, ([0-9.]+x the default) \(([^)]*)\).*tune took ([0-9.]+) s/\1 \2ms, \3 \4, \5s/')
  bwd=$(echo "$out" | grep '^winner' | sed -n 2p | sed -E 's/^winner ([^:]*): ([0-9.]+) ms.*, ([0-9.]+x the default) \(([^)]*)\).*tune took ([0-9.]+) s/\1 \2ms, \3 \4, \5s/')
  summary+=("tune $label|rc=$rc total ${secs}s; fwd $fwd; bwd $bwd")
}
note "== tune =="
tune "causal 8K"      preset:causal --seq 8192 --batch 1 --heads 16
tune "causal 32K"     preset:causal --seq 32768 --batch 1 --heads 16
tune "window1024 16K" "$dir/cfg/window-1024.json"
tune "docs 32K"       preset:packed-documents
tune "random10% 32K"  "$dir/cfg/random-32768.json"
out=$(timeout 60 "$saw" verify causal --seq 8192 --heads 16 --pass fwd 2>&1 | grep -E 'tuned choice|no tuned' | head -1)
note "verify picks up the cache: $out"
summary+=("verify uses cache|${out:0:110}")

fi
note ""
note "== summary ($(( $(date +%s) - t_start )) s; logs in $dir) =="
for row in "${summary[@]}"; do printf '%-26s %s\n' "${row%%|*}" "${row#*|}" | tee -a "$log"; done
