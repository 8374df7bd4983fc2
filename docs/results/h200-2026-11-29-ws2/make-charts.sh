#!/bin/sh
# Renders the comparison charts from the results beside this script; SAW is the saw command to use.
cd "$(dirname "$0")" || exit 1
SAW=${SAW:-saw}
mkdir -p charts
for S in 8192 16384; do
  $SAW chart results/saw-random-$S.json flex/flex-saw-random-$S.json --x density --out charts/density-$S.png
  $SAW chart results/saw-causal-$S.json flex/flex-saw-causal-$S.json --x block --out charts/causal-tiles-$S.png
done
$SAW chart results/saw-causal-8192.json results/saw-causal-16384.json \
  flex/flex-saw-causal-8192.json flex/flex-saw-causal-16384.json --x seq --out charts/causal-seq.png
