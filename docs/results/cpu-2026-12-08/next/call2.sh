#!/usr/bin/env bash
# Forty-ninth session, prepared and not run: dq-colend's backward against main's, three rounds on issue 12's D = 128
# rows (and causal 8K at D = 64, whose kernel the experiment leaves alone), each round starting with another build.
# Run after call1.sh has passed its checks (the same carry):
#   bash docs/results/cpu-2026-12-08/next/call2.sh > /dev/null 2>&1; tail -c 11000 $OUT/driver.log
# Prediction (kernel notes, "dQ finished at column ends"): pl / pm level (0.98-1.01: the experiment's code unused);
# pc / pl up to the forty-fourth session's idle bound (window 1.13, 8 documents in 16K 1.11, 64 documents 1.23,
# causal 1.01-1.03) less what the column ends cost, which reaches issue 12's 400 on the window and 16K-documents
# backwards only if a column end costs the SM at most 1.6-2.0 us.
. docs/results/cpu-2026-12-08/next/common.sh colend2
AB_PASS=bwd AB_DEADLINE=500 ab_rounds_multi 3 "/tmp/pm:main /tmp/pl:launch /tmp/pc:colend" window1024-16k-d128 \
  docs8-16k-d128 docs64-32k-d128 causal-8k-d128 causal-16k-d128 causal-8k-d64
ab_save
ab_el done
