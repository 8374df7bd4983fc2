#!/usr/bin/env bash
# Written in the twenty-third session for the next one with a GPU (not run: the session's device time was spent).
# `uniform-bwd.patch` beside this driver (branch uniform-bwd, 7629040): the backward's consumers broadcast the warpgroup
# index (BwdWg::seat) and each column's ColumnRef from lane 0 with __shfl_sync, so that the compiler can prove them
# warp-uniform and keep the stage addresses and wgmma descriptors made from them on the uniform datapath. Why: call 1's
# SASS of the D = 128 step loop (main) has 54 R2UR, 120 LOP3 and 104 IMAD against 32 HGMMA; the adds of call 4, which
# moved descriptor work from the uniform pipe to the regular integer pipes, cost that kernel 1-5%, so moving integer
# work the other way may pay. PTX: only the eight bwd_wgmmaws_* entries change (+26 lines at D = 128, +2 at D = 64);
# ptxas: no spills where main has none, and the D = 128 softcap entries spill 36 bytes instead of main's 52 (registers
# freed, as values that move to uniform registers would). The rounds time the forward too, whose code is the same in
# both builds: its ratios are the round-to-round noise to judge the backward's by.
# Before the call (bench/gpu/ab-lib.sh's header has the nvcc line): main's sm_90a fatbin as .gpupack/var/main90.fatbin,
# the patch's as .gpupack/var/u.fatbin, in a pack from bench/gpu-pack.sh whose engine jar's fatbin is emptied to fit
# the carry. Steps: the main loop's opcodes of both builds (is R2UR down?), the checks on U, four rounds. ~4 minutes.
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init cu
ab_pack /tmp/pa .gpupack/var/main90.fatbin main
ab_pack /tmp/pu .gpupack/var/u.fatbin uniform-bwd
ab_el "1. the backward's main loop, main and U"
ab_sass bwd_wgmmaws_bf16_d128_q128_kv128 .gpupack/var/main90.fatbin .gpupack/var/u.fatbin
ab_sass bwd_wgmmaws_bf16_d64_q128_kv128 .gpupack/var/main90.fatbin .gpupack/var/u.fatbin
ab_save
ab_el "2. checks on U"
ab_checks /tmp/pu
ab_el "3. main (A) and U, four rounds"
ab_rounds 4 /tmp/pa A /tmp/pu U causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs8-16k-d128 \
  window1024-16k-d128 docs64-32k-d128 causal-8k-d64 causal-16k-d64 "gqa-32k-d64|--kv-heads 8" docs8-16k-d64
ab_el done
