#!/usr/bin/env bash
# Call 2 (H100; prepared in the twenty-sixth session, run in the twenty-seventh): branch uax-d64 (a8982ac, rebuilt from 70fde67's description: UAX's head dim 64 backward and head dim 128 persistent
# forwards, main's kernels elsewhere; PTX compared by entry: only those eight entries differ from main's) against main: its checks
# (bench/gpu/ab-lib.sh's ab_checks: 19 verifies and sanitizer runs), the changed main loops' opcodes, and rounds of
# forward and backward on issue 12's D = 64 and D = 128 rows. Carried: .gpupack with var/fatbins-06.tar.xz (main.fatbin
# of main d441347 and du.fatbin of a8982ac; sha256 beside this file).
# The packs' labels (main-a81f71a, uax-d64-70fde67) are the twenty-sixth session's names for the same kernels, left as they ran.
# Twenty-seventh session: the branch rebuilt from its description (the checkout had lost it), then issue 12's table
# (frontier-table.sh: saw and cuDNN in the same call) on uax-d64 if its checks pass, on main otherwise.
#   bash docs/results/h100-2026-12-06/call2/driver.sh > /dev/null 2>&1; tail -c 9000 $OUT/driver.log
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init c2
python3 -c "import tarfile; tarfile.open('.gpupack/var/fatbins-06.tar.xz').extractall('/tmp/fb')"
(cd /tmp/fb && sha256sum -c "$ab_root/docs/results/h100-2026-12-06/call2/fatbins.sha256") || echo "fatbins differ"
ab_pack /tmp/pa /tmp/fb/main.fatbin main-a81f71a
ab_pack /tmp/pd /tmp/fb/du.fatbin uax-d64-70fde67
ab_el "1. main loops"
ab_sass bwd_wgmmaws_bf16_d64_q128_kv128 /tmp/fb/main.fatbin /tmp/fb/du.fatbin
ab_sass fwd_wgmmapp_bf16_d128_q128_kv128 /tmp/fb/main.fatbin /tmp/fb/du.fatbin
ab_el "2. checks"
ab_checks /tmp/pd
ab_el "3. rounds"
AB_DEADLINE=${AB_DEADLINE:-170} ab_rounds 4 /tmp/pa A /tmp/pd DU causal-8k-d64 causal-16k-d64 "gqa-32k-d64|--kv-heads 8" \
  docs8-16k-d64 docs64-32k-d64 causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs8-16k-d128 \
  window1024-16k-d128 docs64-32k-d128
ab_el "4. issue 12's table with cuDNN"
table=/tmp/pa
grep -q "checks done: 0 of" "$OUT/driver.log" && table=/tmp/pd
echo "table on $table"
OUT=/tmp/c2 timeout -k 5 280 "$table/frontier-table.sh" > /dev/null 2>&1 || echo "frontier-table rc=$?"
tail -40 /tmp/c2/frontier/table.txt
ab_save
ab_el done
