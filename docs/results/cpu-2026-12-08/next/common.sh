#!/usr/bin/env bash
# Sourced by call1.sh and call2.sh: unpacks .gpc (made by prepare.sh) and makes three packs from main's slim pack:
#   /tmp/pm  main's kernels and host code;
#   /tmp/pc  dq-colend's kernels and host code (the D = 128 backward without softcap finishes dQ at its column ends:
#            no conversion launch, and the accumulator filled only before its first use);
#   /tmp/pl  the same build with SAW_KERNEL_DQ=launch (its kernel, the conversion launch and the fill, as main runs
#            them), so that pc / pl is the finishing alone and pl / pm what the experiment's code costs when unused.
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init "$1"
[[ -x .gpupack/saw ]] || tar xJf .gpc/pack.tar.xz
mkdir -p /tmp/colend && xz -dc .gpc/colend.tar.xz | tar xf - -C /tmp/colend
(cd /tmp/colend && sha256sum -c SHA256SUMS)
ab_pack /tmp/pm /tmp/colend/main.fatbin main /tmp/colend/main-engine.jar
ab_pack /tmp/pc /tmp/colend/colend.fatbin colend /tmp/colend/colend-engine.jar
ab_pack /tmp/pl /tmp/colend/colend.fatbin colend-launch /tmp/colend/colend-engine.jar
sed -i '2i export SAW_KERNEL_DQ=launch' /tmp/pl/saw
grep -n SAW_KERNEL_DQ /tmp/pl/saw
