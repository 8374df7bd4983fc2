#!/usr/bin/env bash
# Forty-first session, call 2 (the command line as run, on the machine call 1 left warm): the crossing below sharing
# 1.22, T = 196608 and 262144. T = 262144 at D = 128 was refused by saw bench (a tensor of 2^31 elements is too large
# for host arrays), the other rows ran.
set -uo pipefail; . bench/gpu/ab-lib.sh; ab_init cross2; ls /tmp/ps >/dev/null 2>&1 || { xz -dc .gpupack/var/next.tar.xz | tar xf - -C /tmp; ab_pack /tmp/ps /tmp/skip.fatbin main-b5e4cd1; }; for row in "262144 128" "196608 128" "262144 64" "196608 64"; do set -- $row; SAW_NSA_FWD=shared ab_nsa_rounds 1 "/tmp/ps:shared" "fwd random 1 $1 64 $2 4"; SAW_NSA_FWD=warp ab_nsa_rounds 1 "/tmp/ps:warp" "fwd random 1 $1 64 $2 4"; done; for f in "$ab_res"/ab/*.jsonl; do echo "$f $(grep -ho '"walk_sharing":[0-9.]*' $f | head -1)"; done; ab_save; tail -c 3000 $OUT/driver.log
