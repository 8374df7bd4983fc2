#!/usr/bin/env bash
# Forty-third session, call 2, on the landed kernels (walkvote.fatbin: d55eaa9's sm_90a build, sha256 73d563d6...) and
# main's engine jar after 27dd8d1 (var/engine.jar, the 256 MiB fill before every timed run; fatbin emptied, sha256
# b40712b9...; 9b250b2 changed only how the NSA run decides its scratch, not what it times):
#  1. issue 12's table in four rounds (frontier-table.sh with FT_ROUNDS=4: saw first in odd rounds, the peers first in
#     even ones; frontier_table.py gives each row and pass the medians, ranges and the worst round's ratio), because
#     call 1's single run put cuDNN's causal 16K forward 13% below its earlier runs;
#  2. the full NSA verify matrix (last run on b5e4cd1, before the voted mask landed in the D = 64 walk);
#  3. the NSA sanitizer cases (now with the D = 64 walk, where the vote landed), racecheck then memcheck, while the
#     call's time lasts.
# Carry .gpupack (the slim pack of 87882a9; var/walk.tar.xz, var/engine.jar) and .whl:
#   CALL_BUDGET=540 bash docs/results/gpu-2026-12-07f/call2/driver.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
left() { echo $(( ${CALL_BUDGET:-540} - ($(date +%s) - ab_t0) )); }
xz -dc .gpupack/var/walk.tar.xz | tar xf - -C /tmp
sha256sum /tmp/walkvote.fatbin .gpupack/var/engine.jar
ab_pack /tmp/pf /tmp/walkvote.fatbin main-9b250b2 "$ab_root/.gpupack/var/engine.jar"
cp bench/gpu/frontier-table.sh bench/gpu/frontier_table.py bench/gpu/specs-lib.sh bench/gpu/varlen_peers.py \
  bench/gpu/ragged_rows.py bench/gpu/nsa-run.sh /tmp/pf/
ab_el "issue 12: frontier table, four rounds"
OUT="$ab_res" FT_ROUNDS=4 timeout -k 5 280 /tmp/pf/frontier-table.sh > "$ab_res/frontier.out" 2>&1
echo "frontier-table rc=$?"
ab_save
ab_el "full NSA verify matrix"
AB_CHECK_TIMEOUT=$(( $(left) - 20 > 240 ? 240 : $(left) - 20 )) ab_nsa_check /tmp/pf check NSA_PARTS=verify
ab_save
if (( $(left) > 60 )); then
  ab_el "NSA sanitizer cases: racecheck, memcheck"
  AB_CHECK_TIMEOUT=$(( $(left) - 10 )) ab_nsa_check /tmp/pf san NSA_PARTS=sanitizer NSA_SAN_TOOLS="racecheck memcheck"
  grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$ab_res/san/nsa/sanitizer.log" 2>/dev/null | sort | uniq -c | head
  ab_save
fi
cat "$ab_res/frontier/table.txt"
ab_el done
