#!/usr/bin/env bash
# session 7, call 9: the final D=256 kernels (725e324) beside FlexAttention and cuDNN in one run: causal 8K B=4 H=16 D=256
# bf16, forward and backward (saw bench, median of 10), peers.py from bench/gpu/d256-wgmma.sh unchanged
set -uo pipefail
pack=$PWD/.gpupack
res=$OUT/f9
mkdir -p "$res"
grep -i commit "$pack/saw" | head -1
for pass in fwd bwd; do
  SAW_JAVA_OPTS=-Xmx24g timeout 100 "$pack/saw" bench preset:causal --seq 8192 --batch 4 --heads 16 --head-dim 256 --dtype bf16 --block 64x64 \
    --pass $pass --backend gpu --reps 10 --warmup 3 --out "$res/saw-$pass.jsonl" > "$res/saw-$pass.log" 2>&1
  echo "saw $pass rc=$? $(python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][-1]; print(r.get('kernel'), round(r.get('median_ms'),3), 'ms', round(r.get('useful_tflops'),1), 'TF')" "$res/saw-$pass.jsonl")"
done
sed -n "/^cat >\"\$dir\/peers.py\" <<'PY'\$/,/^PY\$/p" "$pack/d256-wgmma.sh" | sed '1d;$d' > "$res/peers.py"
timeout -k 5 120 python3 "$res/peers.py" > "$res/peers.txt" 2>&1
echo "peers rc=$?"; grep -E "fwd|bwd" "$res/peers.txt"
