#!/usr/bin/env bash
# Issue 15: saw ring-run on the presets (GPU backend) at N = 2, 4, 8 devices for every split scheme, forward and
# backward. Each (device, step) part is one block-sparse launch; the parts are merged by LSE (backward: gradients
# summed) and checked against the single-device kernel and the fp64 reference; each part is timed (median of 3) and
# the N-GPU wall time and efficiency are predicted from those times. Runtime: about 2-3 minutes on one H200 (no mask starts
# after 150 s and each has 60 s; one not started is reported as skipped, so the script ends within 3.5 minutes). Runs from a folder made by bench/gpu-pack.sh.
# Logs: ${OUT:-.}/ring-run/<mask>.log (the full ring-run tables) and ring-run/summary.txt (the table printed last).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=${OUT:-$here}/ring-run
mkdir -p "$logs"
summary=$logs/summary.txt
: >"$summary"
pass=0; fail=0; skipped=0
rows=()
# NAME SPEC ring-run-args...: smaller sizes than the presets' own (4096 or 2048 tokens) so the fp64 reference stays
# quick; the masks keep their shapes (sliding-window's and llama4-chunked's window and chunk scaled to 512 tokens,
# packed-documents' 19 documents scaled to 4096 tokens; nsa-block-list keeps its
# 8192 tokens, one head).
run() {
  local name=$1; shift
  if (( SECONDS > 150 )); then
    skipped=$((skipped + 1)); rows+=("$(printf '%-17s %-6s' "$name" skipped)"); return
  fi
  local out rc
  out=$(timeout 60 "$here/saw" ring-run "$@" --backend gpu --devices 2,4,8 --scheme all --repeat 3 2>&1); rc=$?
  echo "$out" >"$logs/$name.log"; echo "rc=$rc" >>"$logs/$name.log"
  if [[ $rc == 0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  # table rows: N scheme parts skip O LSE dQ dK dV max:single fwd-ms fwd-eff bwd-ms bwd-eff result
  local stats
  stats=$(echo "$out" | awk '
    $1 ~ /^[0-9]+$/ && $1 > 1 && NF == 15 {
      for (i = 5; i <= 9; i++) if ($i + 0 > ref) ref = $i + 0
      if ($10 + 0 > single) single = $10 + 0
      if ($1 == 8) { f = f sprintf(" %s", $12); b = b sprintf(" %s", $14) }
    }
    END { printf "%9.2e %9.2e |%s |%s", single, ref, f, b }')
  rows+=("$(printf '%-17s %-6s %s' "$name" "$([[ $rc == 0 ]] && echo PASS || echo FAIL$rc)" "$stats")")
  echo "$name: rc=$rc ($SECONDS s)"
  [[ $rc == 0 ]] || echo "$out" | tail -6
}
#   name              spec                                      sizes
run causal            preset:causal                             --seq 4096 --heads 2
run sliding-window    'window(512)'                             --seq 2048 --heads 2
run llama4-chunked    'chunked(512)'                            --seq 2048 --heads 2
run prefix-lm         preset:prefix-lm                          --seq 4096 --heads 2
run packed-documents  'and(causal,docs(181,321,272,62,70,127,118,304,544,134,50,77,351,270,106,406,125,225,324))' \
                                                                --seq 4096 --heads 2
run longformer        preset:longformer                         --seq 2048 --heads 2
run bigbird           preset:bigbird                            --seq 2048 --heads 2
run streamingllm      preset:streamingllm                       --seq 2048 --heads 2
run dilated           preset:dilated                            --seq 2048 --heads 2
run gemma-per-head    preset:gemma-per-head                     --seq 2048 --heads 6 --head-dim 64
run nsa-block-list    preset:nsa-block-list                     --heads 1 --head-dim 64
{
  echo "ring-run (GPU backend, D=128 unless noted, bf16): merged outputs against the single-device kernel and fp64"
  echo "max:single / max:ref = worst relative error over O, LSE, dQ, dK, dV and every N, scheme (tolerance 1e-2);"
  echo "eff at N=8 = single-device time / (8 x predicted wall time), schemes in the order contiguous zigzag striped balanced"
  printf '%-17s %-6s %9s %9s | %-31s | %s\n' mask result max:single max:ref "fwd eff N=8" "bwd eff N=8"
  for r in "${rows[@]}"; do echo "$r"; done
  echo "masks: $pass passed, $fail failed, $skipped skipped (time budget); logs in $logs"
} | tee "$summary"
