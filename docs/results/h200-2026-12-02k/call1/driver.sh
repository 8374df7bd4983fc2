#!/usr/bin/env bash
# session 11, call 1 (pack at branch softmax-poly, defaults off = main's kernels; five sm_90a engine jars in .varjar:
# v0 = defaults, v1 = tree max + four partial sums, v2/v3/v4 = v1 + every 4th / 2nd / 8th exponential by exp2_poly,
# for the D = 64 and D = 128 Hopper forwards): correctness of the poly variants, forward timing A/B/C/D/E alternating,
# cuDNN's forward on the dense rows, Nsight Compute (full set) of the D = 64 causal 16K forward for v0 and v3
set -uo pipefail
root=$PWD
pack=$root/.gpupack
res=$OUT/k1
mkdir -p "$res/bench"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
grep -i commit "$pack/saw" | head -1
for v in v0 v1 v2 v3 v4; do
  d=/tmp/pack-$v; mkdir -p "$d/lib"; ln -s "$pack/runtime" "$d/runtime"; cp "$pack"/lib/*.jar "$d/lib/"
  python3 - "$root/.varjar/engine-nofatbin.jar" "$root/.varjar/$v.fatbin" "$d/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import shutil, sys, zipfile
shutil.copy(sys.argv[1], sys.argv[3])
with zipfile.ZipFile(sys.argv[3], "a") as z: z.write(sys.argv[2], "saw/kernels/saw_attention.fatbin")
PY
  cp "$pack/saw" "$pack"/*.sh "$d/"; chmod +x "$d/saw"
done
for v in v0 v3; do
  cp "$root/.varjar/$v.fatbin" /tmp/$v.fatbin
  for f in fwd_wgmmapp_bf16_d64_q128_kv128 fwd_wgmmapp_bf16_d128_q128_kv128; do
    cuobjdump -sass -fun $f /tmp/$v.fatbin > "$res/sass-$v-$f.txt" 2>&1
    echo "sass $v $f: $(grep -c HGMMA "$res/sass-$v-$f.txt") HGMMA, $(grep -c MUFU.EX2 "$res/sass-$v-$f.txt") MUFU.EX2, $(grep -cE 'STL|LDL' "$res/sass-$v-$f.txt") local, $(grep -cE '^\s+/\*[0-9a-f]+\*/' "$res/sass-$v-$f.txt") instructions"
  done
done
gzip -9 "$res"/sass-*.txt
el "verify"
. "$pack/hopper-lib.sh"
here=/tmp/pack-v3
verify_matrix fwd "$res/verify-v3.log" wgmma-pp > "$res/verify-v3.txt" 2>&1
echo "v3 matrix pp: $verify_pass passed, $verify_fail failed ${verify_failed[*]:-}"
for v in v2 v4 v1; do
  here=/tmp/pack-$v; verify_pass=0; verify_fail=0; verify_failed=()
  verify1 fwd wgmma-pp "$res/verify-$v.log" causal --seq 4096 --head-dim 64 --dtype bf16 --heads 4 >/dev/null
  verify1 fwd wgmma-ws "$res/verify-$v.log" 'and(causal,docs(3000,2000,1000,1500))' --seq 8192 --head-dim 64 --dtype fp16 --heads 8 --kv-heads 2 >/dev/null
  verify1 fwd wgmma-pp "$res/verify-$v.log" 'docs(700,1500,1200,500)' --seq 4096 --head-dim 128 --dtype bf16 --heads 2 --softcap 30 >/dev/null
  verify1 fwd wgmma-pp "$res/verify-$v.log" 'or(sinks(16),and(causal,not(window(300))))' --seq 1000 --seq-kv 1500 --head-dim 64 --dtype bf16 --heads 2 >/dev/null
  echo "$v subset: $verify_pass passed, $verify_fail failed ${verify_failed[*]:-}"
done
here=/tmp/pack-v3; verify_pass=0; verify_fail=0; verify_failed=()
for c in "causal --seq 4096 --head-dim 64 --dtype bf16 --heads 4" "window(256) --seq 4096 --head-dim 64 --dtype fp16 --heads 4 --sinks" "random(128,128,4,7) --seq 4096 --head-dim 128 --dtype fp16 --heads 4 --kv-heads 1"; do
  read -ra a <<<"$c"; verify1 fwd wgmma-ws "$res/verify-v3ws.log" "${a[@]}" >/dev/null
done
echo "v3 ws subset: $verify_pass passed, $verify_fail failed ${verify_failed[*]:-}"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/pack-v3/runtime/bin/java -Dsaw.kernel.fwd=wgmma-pp -cp "/tmp/pack-v3/lib/*" \
  saw.app.Main verify 'and(causal,docs(900,700,448))' --seq 2048 --heads 20 --kv-heads 4 --head-dim 64 --dtype bf16 \
  --block 128x128 --pass fwd > "$res/san-racecheck.log" 2>&1; echo "san racecheck v3 rc=$? $(grep -E 'RACECHECK SUMMARY' "$res/san-racecheck.log" | tail -1)"
el "timing"
cat > "$res/win1k.json" <<JSON
{ "schema": "saw.mask/1", "name": "window-1024", "seq_len_q": 8192, "seq_len_kv": 8192, "batch": 4, "heads": 16,
  "block": { "q": 128, "kv": 128 }, "mask": { "sliding_window": { "left": 1024, "right": 0 } } }
JSON
bench() { # TAG VARIANT D SPEC ARGS...
  local tag=$1 var=$2 hd=$3 spec=$4; shift 4
  SAW_JAVA_OPTS=-Xmx24g timeout 100 /tmp/pack-$var/saw bench "$spec" "$@" --head-dim $hd --dtype bf16 --block 128x128 \
    --pass fwd --backend gpu --reps 20 --warmup 3 --out "$res/bench/$tag-$var.jsonl" >> "$res/bench.log" 2>&1
}
rows=(
  "c8k-d64|64|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k-d64|64|preset:causal --seq 16384 --batch 4 --heads 16"
  "gqa32k-d64|64|preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8"
  "win1k-d64|64|$res/win1k.json"
  "c8k-d128|128|preset:causal --seq 8192 --batch 4 --heads 16"
  "c16k-d128|128|preset:causal --seq 16384 --batch 4 --heads 16"
  "gqa32k-d128|128|preset:causal --seq 32768 --batch 1 --heads 32 --kv-heads 8")
for r in 1 2; do
  for row in "${rows[@]}"; do
    tag=${row%%|*}; x=${row#*|}; hd=${x%%|*}; c=${x#*|}; read -ra a <<<"$c"
    if [[ $r == 1 ]]; then vs="v0 v1 v2 v3 v4"; else vs="v4 v3 v2 v1 v0"; fi
    for v in $vs; do bench "$tag-r$r" $v $hd "${a[@]}"; done
  done
done
python3 - "$res/bench" <<'PY'
import json, sys, glob, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag, var = os.path.basename(f)[:-6].rsplit("-", 1)
    ok = [r for r in (json.loads(l) for l in open(f)) if r.get("status") == "ok" and r.get("pass") == "fwd"]
    rows[tag][var] = (ok[0]["median_ms"], ok[0]["useful_tflops"]) if ok else None
vs = ["v0", "v1", "v2", "v3", "v4"]
print(f"{'row':16s}" + "".join(f"{v:>16s}" for v in vs))
for tag in sorted(rows):
    v = rows[tag]; b = v.get("v0")
    print(f"{tag:16s}" + "".join((f"{v[x][1]:8.1f} {b[0] / v[x][0]:6.3f}x " if v.get(x) and b else f"{'-':>16s}") for x in vs))
PY
el "cudnn"
cat > "$res/cudnn_fwd.py" <<'PY'
# the peer that ran, saved beside its numbers: cuDNN SDPA forward on the dense causal rows, median of 20 after 3
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
for D in (64, 128):
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
timeout 120 python3 "$res/cudnn_fwd.py" 2>&1 | tee "$res/cudnn.txt"
el "ncu"
for v in v0 v3; do
  SAW_JAVA_OPTS=-Dsaw.kernel.fwd=wgmma-pp timeout 200 ncu --clock-control none --target-processes all -k regex:'^fwd_' \
    --launch-skip 2 --launch-count 1 --set full --import-source no -f -o "$res/prof-d64-$v" \
    /tmp/pack-$v/saw bench preset:causal --backend gpu --seq 16384 --batch 4 --heads 16 --head-dim 64 --block 128x128 \
    --pass fwd --reps 1 --warmup 2 --out /tmp/ncu-$v.jsonl > "$res/prof-d64-$v.log" 2>&1
  echo "ncu $v rc=$?"
  ncu -i "$res/prof-d64-$v.ncu-rep" --page details --print-details all > "$res/prof-d64-$v-details.txt" 2>&1
  ncu -i "$res/prof-d64-$v.ncu-rep" --page raw --csv > "$res/prof-d64-$v-raw.csv" 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Ipc A|Pipe|SM Busy" "$res/prof-d64-$v-details.txt" | head -20
  python3 - "$res/prof-d64-$v-raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]; val = rows[-1]
for h, x in zip(hdr, val):
    if "pipe" in h and ("pct_of_peak_sustained_active" in h) and ("inst_executed" in h or "cycles_active" in h):
        print(h, x)
PY
  gzip -f "$res/prof-d64-$v-details.txt" "$res/prof-d64-$v-raw.csv"; rm -f "$res/prof-d64-$v.ncu-rep"
done
el done
