#!/usr/bin/env bash
# Sourced by hopper-run.sh, hopper-bwd-run.sh and profile.sh: `saw verify` of Hopper kernel families over one matrix
# of masks, shapes, dtypes, GQA and softcap settings with 128x128 tiles (the backend falls back to mma.sync
# elsewhere), compute-sanitizer on one small case, and Nsight Compute on one large causal launch. Needs $here, the
# pack folder. Verify counts land in verify_pass, verify_fail and verify_failed.
verify_pass=0; verify_fail=0; verify_failed=()

# PASS (fwd: forward only; bwd: forward and backward) FAMILY LOG verify-args...
verify1() {
  local o rc pass=$1 v=$2 log=$3; shift 3
  local passes=fwd; [[ $pass == bwd ]] && passes=fwd,bwd
  o=$(SAW_JAVA_OPTS=-Dsaw.kernel.$pass=$v timeout 90 "$here/saw" verify "$@" --block 128x128 --pass $passes 2>&1); rc=$?
  { echo "== $v $*"; echo "$o"; echo "rc=$rc"; } >>"$log"
  if [[ $rc == 0 ]]; then verify_pass=$((verify_pass + 1)); else verify_fail=$((verify_fail + 1)); verify_failed+=("$v $*"); fi
  printf '%-4s %-13s %s  %s\n' "$([[ $rc == 0 ]] && echo ok || echo FAIL)" "$v" "$*" \
    "$(echo "$o" | awk '$1=="O"||$1=="LSE"{printf "%s %s  ", $1, $2}')"
  [[ $rc == 0 ]] || echo "$o" | tail -8
}

# PASS LOG FAMILY...: every case once per family
verify_matrix() {
  local pass=$1 log=$2; shift 2
  local families=("$@")
  each() { local v; for v in "${families[@]}"; do verify1 "$pass" "$v" "$log" "$@"; done; }
  each causal --seq 1000 --head-dim 128 --dtype bf16 --heads 4
  each causal --seq 4096 --head-dim 128 --dtype fp16 --heads 4 --kv-heads 1
  each 'window(256)' --seq 4096 --head-dim 64 --dtype bf16 --heads 4
  each 'docs(700,1500,1200,500)' --seq 4096 --head-dim 128 --dtype bf16 --heads 2 --softcap 30
  each 'and(causal,docs(3000,2000,1000,1500))' --seq 8192 --head-dim 64 --dtype fp16 --heads 8 --kv-heads 2
  each 'random(128,128,4,7)' --seq 4096 --head-dim 128 --dtype fp16 --heads 4 --kv-heads 1
  each 'random(128,128,16,3)' --seq 8192 --head-dim 128 --dtype bf16 --heads 2
  each 'or(sinks(16),and(causal,not(window(300))))' --seq 1000 --seq-kv 1500 --head-dim 64 --dtype bf16 --heads 2
  each 'or(sinks(16),and(causal,not(window(300))))' --seq 4096 --head-dim 128 --dtype fp16 --heads 2
  each 'causal(3096)' --seq 1000 --seq-kv 4096 --head-dim 128 --dtype fp16 --heads 2
  each 'window(256)' --seq 1000 --seq-kv 700 --head-dim 64 --dtype bf16 --heads 2 --softcap 10
  each 'heads(causal,window(128),docs(300,400))' --seq 1000 --head-dim 128 --dtype fp16 --heads 6
  each 'dilated(3)' --seq 1000 --head-dim 64 --dtype fp16 --heads 2 --softcap 20
  each 'dilated(3)' --seq 1000 --head-dim 128 --dtype bf16 --heads 2 --softcap 20
  each full --seq 4096 --head-dim 128 --dtype bf16 --heads 2
}

# PASS LOG SUMMARY FAMILY:TOOL...: compute-sanitizer on a small case (5 q-tiles, GQA, documents with padding rows
# that attend nothing; a backward column of many steps wraps the warp-specialised kernels' 3-stage rings)
sanitize_small() {
  local pass=$1 log=$2 summary=$3; shift 3
  local passes=fwd; [[ $pass == bwd ]] && passes=fwd,bwd
  local vt o rc
  for vt in "$@"; do
    o=$(timeout 90 compute-sanitizer --tool "${vt#*:}" --error-exitcode 9 "$here/runtime/bin/java" -Dsaw.kernel.$pass="${vt%%:*}" \
      -cp "$here/lib/*" saw.app.Main verify 'and(causal,docs(200,300,100))' --seq 640 --heads 2 --kv-heads 1 --head-dim 128 \
      --dtype bf16 --block 128x128 --pass $passes 2>&1); rc=$?
    { echo "== $vt"; echo "$o"; } >>"$log"
    echo "compute-sanitizer $vt: rc=$rc $(echo "$o" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)" | tee -a "$summary"
  done
}

# PASS FAMILY LOG ncu-options...: Nsight Compute on the third launch of PASS's main kernel in a causal S=8192,
# B=4, H=16, D=128 bf16 run of FAMILY at 128x128; ncu's console output goes to LOG
ncu_causal() {
  local pass=$1 v=$2 log=$3; shift 3
  local kernels='^fwd_'; [[ $pass == bwd ]] && kernels='^bwd_(wgmmaws_)?(bf16|fp16)_d'
  SAW_JAVA_OPTS=-Dsaw.kernel.$pass=$v timeout 240 ncu --clock-control none --target-processes all -k regex:"$kernels" \
    --launch-skip 2 --launch-count 1 "$@" \
    "$here/saw" bench preset:causal --backend gpu --seq 8192 --batch 4 --heads 16 --head-dim 128 --block 128x128 \
    --pass "$pass" --reps 1 --warmup 2 --out "/tmp/ncu-bench-$pass-$v.jsonl" >"$log" 2>&1
}
