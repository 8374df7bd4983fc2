#!/usr/bin/env bash
# session 11, call 2 (pack at branch d64-q192, e7d14b9): the D = 64 Hopper forward with three consumer warpgroups over
# 192-row CTAs (saw.kernel.fwd64=wgmma-q192) checked (SASS, verify matrix + sampled big verifies, memcheck / racecheck /
# synccheck) and timed A/B against the two-consumer 128-row forward (the default), alternating; cuDNN's D = 64
# forward on the dense rows in the same call; Nsight Compute of the 192-row kernel on causal 16K
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/k2
mkdir -p "$res/bench"
exec > >(tee "$res/driver.log") 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
python3 -c "import zipfile,glob; z=zipfile.ZipFile(glob.glob('$pack/lib/saw-engine-*.jar')[0]); open('/tmp/saw.fatbin','wb').write(z.read('saw/kernels/saw_attention.fatbin'))"
for f in fwd_wgmmapp_bf16_d64_q192_kv128 fwd_wgmmaws_bf16_d64_q192_kv128 fwd_wgmmapp_bf16_d64_q128_kv128; do
  cuobjdump -sass -fun $f /tmp/saw.fatbin > "$res/sass-$f.txt" 2>&1
  echo "sass $f: $(grep -c HGMMA "$res/sass-$f.txt") HGMMA, $(grep -cE 'STL|LDL' "$res/sass-$f.txt") local, $(grep -c MUFU.EX2 "$res/sass-$f.txt") MUFU.EX2, $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$res/sass-$f.txt") instructions"
  grep -nE 'STL|LDL' "$res/sass-$f.txt" | head -12
done
el "verify"
. "$pack/hopper-lib.sh"
here=$pack
export SAW_KERNEL_FWD64=wgmma-q192
verify_matrix fwd "$res/verify-matrix.log" wgmma-pp wgmma-ws > "$res/verify-matrix.txt" 2>&1
echo "matrix (q192 switch on) pp + ws: $verify_pass passed, $verify_fail failed ${verify_failed[*]:-}"
cat > "$res/docs64-32k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs64", "seq_len_q": 32768, "seq_len_kv": 32768, "batch": 1, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [$(python3 -c "
L=[(i % 4 + 1) * 32768 // 160 for i in range(63)]; print(', '.join(map(str, L + [32768 - sum(L)])))")] } } ] } }
JSON
cat > "$res/win1k.json" <<JSON
{ "schema": "saw.mask/1", "name": "window-1024", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "sliding_window": { "left": 1024, "right": 0 } } }
JSON
cat > "$res/docs8-8k.json" <<JSON
{ "schema": "saw.mask/1", "name": "docs8", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "and": [ { "causal": { "offset": 0 } }, { "documents": { "lengths": [410, 819, 1229, 819, 1638, 819, 1638, 820] } } ] } }
JSON
big=(
  "pp|$res/docs64-32k.json --head-dim 64 --dtype bf16 --rows 32"
  "ws|$res/docs64-32k.json --head-dim 64 --dtype fp16 --softcap 30 --sinks --rows 32"
  "pp|causal --seq 16384 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --rows 24"
  "pp|window(1024) --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 --rows 24"
  "pp|and(causal,docs(700,300,200)) --seq 1250 --batch 8 --heads 20 --kv-heads 4 --head-dim 64 --dtype bf16"
  "ws|causal(3096) --seq 1000 --seq-kv 4096 --head-dim 64 --dtype fp16 --heads 6 --kv-heads 2"
  "pp|random(128,128,4,7) --seq 4000 --head-dim 64 --dtype fp16 --heads 4 --kv-heads 1 --sinks"
  "pp|window(256) --seq 1000 --seq-kv 700 --head-dim 64 --dtype bf16 --heads 2 --softcap 10"
  "pp|dilated(3) --seq 3000 --heads 4 --head-dim 64 --dtype bf16")
for n in "${!big[@]}"; do
  r=${big[$n]}; fam=${r%%|*}; c=${r#*|}
  read -ra a <<<"$c"
  SAW_JAVA_OPTS="-Xmx24g -Dsaw.kernel.fwd=wgmma-$fam" timeout 120 "$pack/saw" verify "${a[@]}" --block 128x128 --pass fwd > "$res/verify-big-$n.log" 2>&1
  echo "verify $fam rc=$? $c | $(grep -E '^(PASS|FAIL)' "$res/verify-big-$n.log")"
done
for fam in pp ws; do for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$pack/runtime/bin/java" -Dsaw.kernel.fwd=wgmma-$fam -cp "$pack/lib/*" \
    saw.app.Main verify 'and(causal,docs(900,700,448))' --seq 2048 --heads 20 --kv-heads 4 --head-dim 64 --dtype bf16 \
    --block 128x128 --pass fwd > "$res/san-$fam-$tool.log" 2>&1; echo "rc=$?" >> "$res/san-$fam-$tool.log"
  echo "san $fam $tool $(tail -1 $res/san-$fam-$tool.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$res/san-$fam-$tool.log" | tail -1) $(grep -E '^(PASS|FAIL)' "$res/san-$fam-$tool.log")"
done; done
unset SAW_KERNEL_FWD64
el "timing"
bench() { # TAG VARIANT FAMILY SPEC ARGS...
  local tag=$1 var=$2 fam=$3 spec=$4; shift 4
  SAW_JAVA_OPTS="-Xmx24g -Dsaw.kernel.fwd=wgmma-$fam -Dsaw.kernel.fwd64=$var" timeout 100 "$pack/saw" bench "$spec" "$@" \
    --head-dim 64 --dtype bf16 --block 128x128 --pass fwd --backend gpu --reps 20 --warmup 3 \
    --out "$res/bench/$tag-$fam-$var.jsonl" >> "$res/bench.log" 2>&1
}
rows=(
  "c8k|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k|preset:causal --seq 16384 --batch 4 --heads 16"
  "gqa32k|preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8"
  "win1k|$res/win1k.json"
  "docs8|$res/docs8-8k.json"
  "docs64|$res/docs64-32k.json")
for r in 1 2 3; do
  for row in "${rows[@]}"; do
    tag=${row%%|*}; c=${row#*|}; read -ra a <<<"$c"
    if [[ $r == 2 ]]; then vs="wgmma-q192 wgmma"; else vs="wgmma wgmma-q192"; fi
    for v in $vs; do bench "$tag-r$r" $v pp "${a[@]}"; done
  done
done
for row in "${rows[@]:0:2}"; do
  tag=${row%%|*}; c=${row#*|}; read -ra a <<<"$c"
  for v in wgmma wgmma-q192; do bench "$tag-r1" $v ws "${a[@]}"; done
done
python3 - "$res/bench" <<'PY' | tee "$res/table.txt"
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    base = os.path.basename(f)[:-6]
    var = "q192" if base.endswith("-wgmma-q192") else "q128"
    head = base[: -len("-wgmma-q192")] if var == "q192" else base[: -len("-wgmma")]
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
    rows[head][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"], ok[0].get("kernel")) if ok else None
for head in sorted(rows):
    v = rows[head]; a = v.get("q128"); b = v.get("q192")
    print(f"{head:18s}", f"q128 {a[0]:.3f} ms {a[1]:6.1f}" if a else "q128 -", f"q192 {b[0]:.3f} ms {b[1]:6.1f}" if b else "q192 -",
          f"{a[0] / b[0]:.3f}x" if a and b else "", (a[2] if a else ""), (b[2] if b else ""))
PY
el "cudnn"
cat > "$res/cudnn_fwd.py" <<'PY'
# the peer that ran, saved beside its numbers: cuDNN SDPA forward on the dense causal rows, median of 20 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for D in (64,):
    for name, B, H, HKV, S in (("c8k", 4, 16, 16, 8192), ("c16k", 4, 16, 16, 16384), ("gqa32k", 1, 32, 8, 32768)):
        g = torch.Generator(device="cuda").manual_seed(0)
        q = torch.randn(B, H, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, HKV, S, D, generator=g, device="cuda", dtype=torch.bfloat16)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ts = []
            for i in range(23):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record(); F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=H != HKV); b.record(); b.synchronize()
                if i >= 3: ts.append(a.elapsed_time(b))
        ts.sort(); ms = (ts[9] + ts[10]) / 2
        print(f"cudnn {name}-d{D} {ms:.3f} ms {4 * B * H * D * S * (S + 1) / 2 / ms / 1e9:.1f} TFLOP/s")
        sys.stdout.flush()
PY
timeout 120 python3 "$res/cudnn_fwd.py" 2>&1
el "ncu"
SAW_JAVA_OPTS="-Dsaw.kernel.fwd=wgmma-pp -Dsaw.kernel.fwd64=wgmma-q192" timeout 200 ncu --clock-control none --target-processes all \
  -k regex:'^fwd_' --launch-skip 2 --launch-count 1 --set full --import-source no -f -o "$res/prof-q192" \
  "$pack/saw" bench preset:causal --backend gpu --seq 16384 --batch 4 --heads 16 --head-dim 64 --block 128x128 \
  --pass fwd --reps 1 --warmup 2 --out /tmp/ncu-q192.jsonl > "$res/prof-q192.log" 2>&1
echo "ncu rc=$?"
ncu -i "$res/prof-q192.ncu-rep" --page details --print-details all > "$res/prof-q192-details.txt" 2>&1
ncu -i "$res/prof-q192.ncu-rep" --page raw --csv > "$res/prof-q192-raw.csv" 2>&1
grep -E "Duration|Issue Slots Busy|Executed Ipc A|No Eligible" "$res/prof-q192-details.txt" | head -8
python3 - "$res/prof-q192-raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1]))); d = dict(zip(rows[0], rows[-1]))
for k in ["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
          "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
          "smsp__inst_executed.sum", "sm__cycles_elapsed.avg"]:
    print(k, d.get(k))
st = sorted(((a, b) for a, b in d.items() if a.startswith("smsp__average_warps_issue_stalled_") and a.endswith("_per_issue_active.ratio")),
            key=lambda x: -float(x[1] or 0))
for a, b in st[:8]: print(a.replace("smsp__average_warps_issue_stalled_", ""), b)
PY
rm -f "$res/prof-q192.ncu-rep"
el done
cd "$OUT" && tar czf k2-logs.tgz k2 && rm -rf k2/bench k2/sass-* k2/verify-* k2/san-* k2/*.json k2/prof-q192-raw.csv k2/prof-q192-details.txt k2/bench.log k2/prof-q192.log k2/cudnn_fwd.py
ls -la "$OUT" "$OUT/k2"
