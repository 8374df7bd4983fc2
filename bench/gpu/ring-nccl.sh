#!/usr/bin/env bash
# Ring attention on several GPUs (issue 16), about 1-2 minutes (at most 4: each run has its own timeout). With 2+ GPUs: a ring of 2 devices on GPUs 0 and 1,
# K/V (and fp32 dK/dV) passed by NCCL send/recv (libnccl.so.2 from SAW_NCCL_LIB, the loader path or python3's
# nvidia-nccl package; NCCL_NVLS_ENABLE=0), then once with CUDA peer copies. With 1 GPU: the same rings as 2 (and 4)
# "virtual" devices on that one GPU, which checks the algorithm but measures no interconnect. It says which it did.
# Cases: causal, 8K tokens per device, GQA 32:8, D=128, bf16, contiguous / zigzag / striped / balanced, forward and
# fwd+bwd; 64 packed causal documents, balanced vs zigzag. Each run checks the merged O, LSE, dQ, dK, dV against
# the single-GPU kernel on the whole mask and times both: TFLOP/s per GPU = useful FLOPs / N / ring wall time,
# eff = single-GPU ms / (N x ring ms). Logs, saw.bench/1 results and the efficiency chart go to ${OUT:-.}/ring-nccl/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}/ring-nccl
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
export SAW_JAVA_OPTS=${SAW_JAVA_OPTS:--Xmx24g}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if (( gpus >= 2 )); then
  G=2; mode="2 GPUs (ring devices 0 and 1 on GPUs 0 and 1)"
else
  G=1; mode="ONE GPU: ring devices run as virtual devices on it (device-to-device copies, no interconnect measured)"
fi
echo "ring-nccl: $gpus GPU(s) visible; running on $mode" | tee "$out/summary.txt"
nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
echo "python3's nvidia-nccl: ${nccl:-not installed}; SAW_NCCL_LIB=${SAW_NCCL_LIB:-unset}" | tee -a "$out/summary.txt"
nvidia-smi topo -m >"$out/topology.txt" 2>&1 || true
"$here/saw" env 2>&1 | grep -E '^(gpu backend|nccl)' | tee -a "$out/summary.txt"

run() {  # name, timeout in seconds, then saw ring-run arguments
  local name=$1 limit=$2; shift 2
  echo "== $name: saw ring-run $*" | tee -a "$out/ring.log"
  timeout "$limit" "$here/saw" ring-run "$@" --out "$out/$name.json" >"$out/$name.log" 2>&1
  local rc=$?
  cat "$out/$name.log" >>"$out/ring.log"
  echo "rc=$rc" >>"$out/ring.log"
  grep -E '^ring of|transport' "$out/$name.log" | head -2
  grep -E '^[0-9]+ +[a-z]+ +skip' "$out/$name.log" | sed "s/^/$name  /" >>"$out/rows.txt"
  [[ $rc == 0 ]] || { echo "$name: rc=$rc"; tail -5 "$out/$name.log"; }
}
: >"$out/rows.txt"
common=(--heads 32 --kv-heads 8 --head-dim 128 --dtype bf16 --block 128x128 --pass fwd,bwd --repeat 5 --gpus "$G")
run causal 100 causal --seq 16384 --devices 2 --scheme contiguous,zigzag,striped,balanced "${common[@]}"
# 64 packed documents over 16384 tokens, lengths drawn once from a fixed seed (64..447 tokens, summing to 16384)
docs=$(python3 -c '
import random
r = random.Random(64); w = [r.randint(64, 447) for _ in range(64)]; s = sum(w)
n = [x * 16384 // s for x in w]; n[-1] += 16384 - sum(n); print(",".join(map(str, n)))')
run docs64 70 "and(causal,docs($docs))" --seq 16384 --devices 2 --scheme zigzag,balanced "${common[@]}"
if (( G == 2 )); then
  run causal-p2p 50 causal --seq 16384 --devices 2 --scheme zigzag "${common[@]}" --transport p2p
else
  run causal-virtual4 50 causal --seq 32768 --devices 4 --scheme zigzag,balanced "${common[@]}"
fi
if "$here/saw" ring-chart "$out"/causal.json "$out"/docs64.json --out "$out/efficiency.png" >/dev/null 2>"$out/chart.err"; then
  echo "chart: $out/efficiency.png"
else
  echo "chart not drawn here ($(head -1 "$out/chart.err")); draw it where saw runs: saw ring-chart ring-nccl/*.json --out eff.png"
fi
{
  echo
  echo "ring-nccl on $mode"
  for f in "$out"/causal*.log "$out"/docs64.log; do
    [[ -f $f ]] || continue
    echo "  $(basename "$f" .log): $(grep -m1 '^single GPU' "$f" | sed 's/ (whole mask, one launch)//')"
  done
  grep -h 'transport:' "$out"/*.log | sed 's/^ring of/  ring of/' | sort -u
  printf '%-16s %-3s %-11s %-9s %-28s %-30s %s\n' case N scheme err fwd "fwd+bwd" ok
  awk '{
    n=$2; sch=$3; err=$10; fms=$12; ftf=$14; feff=$17; bms=$19; btf=$21; beff=$24; ok=$25;
    printf "%-16s %-3s %-11s %-9s %7s ms %5s TF/GPU %6s %7s ms %5s TF/GPU %6s %s\n", $1, n, sch, err, fms, ftf, feff, bms, btf, beff, ok
  }' "$out/rows.txt"
  echo "err: largest relative error of the merged O, LSE, dQ, dK, dV against the single-GPU kernel; TF/GPU: useful TFLOP/s per GPU; %: efficiency"
  echo "targets (2+ GPUs only): balanced or zigzag causal eff >= 85%; docs64 balanced >= 75% and above zigzag; err within bf16 1e-2"
} | tee -a "$out/summary.txt"
