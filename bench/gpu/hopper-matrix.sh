#!/usr/bin/env bash
# Sourced by hopper-run.sh and hopper-bwd-run.sh: `saw verify` of Hopper kernel families over one matrix of masks,
# shapes, dtypes, GQA and softcap settings, with 128x128 tiles (the backend falls back to mma.sync elsewhere).
# Needs $here, the pack folder. Counts land in verify_pass, verify_fail and verify_failed.
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
