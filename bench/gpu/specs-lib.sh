#!/usr/bin/env bash
# Sourced by q64-forward.sh and frontier-table.sh: the saw.mask/1 configs of issue 12's rows, written into a folder.
# frontier_specs DIR writes docs64-32k (64 packed documents in 32K, B=1 H=16: lengths cycling through 1-4 units, as
# flex-compare.sh makes them), docs8-8k and docs8-16k (8 documents of 5-20 % of S, B=4 H=16), window1024-16k,
# causal-8k, causal-16k (B=4 H=16) and gqa-32k (B=1 H=32; pass --kv-heads 8).

# DIR NAME S B H MASK_JSON
mask_spec() {
  cat >"$1/$2.json" <<JSON
{ "schema": "saw.mask/1", "name": "$2", "seq_len_q": $3, "seq_len_kv": $3, "batch": $4, "heads": $5,
  "block": { "q": 128, "kv": 128 }, "mask": $6 }
JSON
}

# S PERCENT...: document lengths at these percentages of S, the last one taking the rest
doc_lengths() {
  local S=$1 L="" SUM=0 n pct; shift
  for pct in "$@"; do n=$((S * pct / 100)); L="$L$n, "; SUM=$((SUM + n)); done
  echo "$L$((S - SUM))"
}

frontier_specs() {
  local dir=$1 causal='{ "causal": { "offset": 0 } }' L="" SUM=0 n d
  for d in $(seq 0 62); do n=$(( (d % 4 + 1) * 32768 / 160 )); L="$L$n, "; SUM=$((SUM + n)); done
  mask_spec "$dir" docs64-32k 32768 1 16 "{ \"and\": [ $causal, { \"documents\": { \"lengths\": [$L$((32768 - SUM))] } } ] }"
  mask_spec "$dir" docs8-8k 8192 4 16 "{ \"and\": [ $causal, { \"documents\": { \"lengths\": [$(doc_lengths 8192 5 10 15 10 20 10 20)] } } ] }"
  mask_spec "$dir" docs8-16k 16384 4 16 "{ \"and\": [ $causal, { \"documents\": { \"lengths\": [$(doc_lengths 16384 5 10 15 10 20 10 20)] } } ] }"
  mask_spec "$dir" window1024-16k 16384 4 16 '{ "sliding_window": { "left": 1024, "right": 0 } }'
  mask_spec "$dir" causal-8k 8192 4 16 "$causal"
  mask_spec "$dir" causal-16k 16384 4 16 "$causal"
  mask_spec "$dir" gqa-32k 32768 1 32 "$causal"
}
