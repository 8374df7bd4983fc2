#!/usr/bin/env bash
# Prepared in the thirty-fourth session, not run (no device time left). Call A of two (call B: next-fla.sh), in order
# of what matters:
#   1. the checks: build `tma` (branch nsa-walk-tma: the walk's producer by bulk tensor copies, its consumers reading
#      64-column panels) on two D = 64 walk cases first (B = 2 T = 77: boxes past the sequence's end), then through
#      nsa-run.sh's quick verify matrix with memcheck / racecheck (its walk cases: D = 128 on auto, D = 64 forced),
#      the same two tools on the D = 64 cases; build `prod` (branch nsa-walk-producer: one cp.async a copy) on two
#      D = 64 and two D = 128 walk cases;
#   2. two A/B rounds, main / prod / tma, on rows where auto runs the walk and with the walk forced where it does not
#      (D = 64, random selections), the warp order timed beside them for the rule.
# Carry: .gpupack = slim pack of main (engine jar's fatbin emptied; host code of main f92544c = a522118) with
# var/fatbins.tar.xz (rows.fatbin = main a522118's sm_90a kernels, prod.fatbin, tma.fatbin; hashes in
# ../fatbins.sha256) and var/tma-engine.jar (branch nsa-walk-tma's engine jar: the walk's tensor maps, fatbin emptied).
#   CALL_BUDGET=575 bash docs/results/gpu-2026-12-06h/next-not-run/next.sh > /dev/null 2>&1
#   tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init pa
left() { echo $(( ${CALL_BUDGET:-575} - ($(date +%s) - ab_t0) )); }
mkdir -p /tmp/fb && xz -dc .gpupack/var/fatbins.tar.xz | tar xf - -C /tmp/fb && sha256sum /tmp/fb/*.fatbin
ab_pack /tmp/pm /tmp/fb/rows.fatbin main
ab_pack /tmp/pp /tmp/fb/prod.fatbin producer
ab_pack /tmp/pt /tmp/fb/tma.fatbin tma "$ab_root/.gpupack/var/tma-engine.jar"
d64tail=(--nsa random --nsa-block 64 --nsa-s 4 --heads 2 --kv-heads 2 --head-dim 64 --dtype fp16 --seq 77 --batch 2)
d64scored=(--nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 64 --dtype bf16 --seq 1024)
ab_el "tma: the D = 64 walk first (a wrong byte count would hang, so short cases under a timeout)"
SAW_NSA_FWD=shared ab_verify /tmp/pt d64-tail "${d64tail[@]}" --pass fwd,bwd
SAW_NSA_FWD=shared ab_verify /tmp/pt d64-scored "${d64scored[@]}" --pass fwd,bwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d64-tail "${d64tail[@]}" --pass fwd,bwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d64-scored "${d64scored[@]}" --pass fwd,bwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-scored --nsa scored --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 \
  --head-dim 128 --dtype bf16 --seq 4096 --pass fwd,bwd
SAW_NSA_FWD=shared ab_verify /tmp/pp d128-tail-softcap --nsa random --nsa-block 64 --nsa-s 8 --heads 16 --kv-heads 2 \
  --head-dim 128 --dtype fp16 --seq 77 --softcap 30 --pass fwd,bwd
for tool in memcheck racecheck; do
  SAW_NSA_FWD=shared ab_san /tmp/pt d64-tail "$tool" "${d64tail[@]}" --pass fwd
  SAW_NSA_FWD=shared ab_san /tmp/pt d64-scored "$tool" "${d64scored[@]}" --pass fwd
done
ab_save
ab_el "tma: quick verify matrix, memcheck and racecheck"
AB_CHECK_TIMEOUT=200 ab_nsa_check /tmp/pt tmacheck NSA_PARTS="verify sanitizer" NSA_VERIFY=quick \
  NSA_SAN_TOOLS="memcheck racecheck"
ab_save
auto_rows=("fwd scored 1 32768 64 128 10" "fwd scored 1 65536 64 128 10" "fwd scored 4 16384 64 128 10"
  "fwd scored 1 8192 64 128 10" "fwd random 1 8192 64 128 10")
walk_rows=("fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 64 10" "fwd random 1 32768 64 128 10"
  "fwd random 1 16384 64 128 10" "fwd random 1 65536 64 128 10")
warp_rows=("fwd scored 1 32768 64 64 10" "fwd random 1 32768 64 64 10" "fwd random 1 65536 64 128 10")
for rd in 1 2; do
  builds="/tmp/pm:main /tmp/pp:prod /tmp/pt:tma"; [[ $rd == 2 ]] && builds="/tmp/pt:tma /tmp/pp:prod /tmp/pm:main"
  (( $(left) > 60 )) || break
  ab_el "A/B round $rd: auto rows, the walk forced, and the warp order on the same rows for the rule"
  ab_nsa_rounds 1 "$builds" "${auto_rows[@]}"
  SAW_NSA_FWD=shared ab_nsa_rounds 1 "$builds" "${walk_rows[@]}"
  SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/pm:main" "${warp_rows[@]}"
  mv "$ab_res/ab" "$ab_res/ab-$rd"; mkdir -p "$ab_res/ab"; ab_save
done
ab_el done
