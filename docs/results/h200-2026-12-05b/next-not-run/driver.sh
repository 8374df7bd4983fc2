#!/usr/bin/env bash
# Written in the twenty-third session for the next one with a GPU (not run: the session's device time was spent).
# `uniform.patch` beside this driver (branch `uniform`, b1c3ba9): the Hopper forward's and backward's consumers make
# what they take from their rings provably warp-uniform: HandRing::take hands every lane lane 0's entry (__shfl_sync per
# word) and both kernels broadcast their warpgroup index from lane 0 (CUTLASS does the same), so that the compiler can
# keep step counts, ring stages, their shared-memory addresses and the wgmma descriptors on the uniform datapath. Why:
# call 1's SASS of main's D = 128 backward step loop has 54 R2UR, 120 LOP3 and 104 IMAD against 32 HGMMA, and the adds
# of call 4, which moved descriptor work from the uniform pipe to the regular integer pipes, cost that kernel 1-5%; so
# moving integer work the other way may pay. PTX: only the sixteen fwd_wgmmaws / fwd_wgmmapp (128-row, D = 64 and 128)
# and bwd_wgmmaws entries change; ptxas: spills as main's, except the D = 128 softcap backward, 36 bytes instead of 52
# (registers freed, as values that move to uniform registers would).
# Before the call (bench/gpu/ab-lib.sh's header has the nvcc line): main's sm_90a fatbin as .gpupack/var/main90.fatbin,
# the branch's as .gpupack/var/u.fatbin, in a pack from bench/gpu-pack.sh whose engine jar's fatbin is emptied to fit
# the carry. Steps: the main loops' opcodes of both builds (is R2UR down?), the checks on U, four rounds of forward and
# backward on issue 12's rows. About 4 minutes.
set -uo pipefail
. bench/gpu/ab-lib.sh
ab_init cu
ab_pack /tmp/pa .gpupack/var/main90.fatbin main
ab_pack /tmp/pu .gpupack/var/u.fatbin uniform-b1c3ba9
ab_el "1. the main loops, main and U"
for f in bwd_wgmmaws_bf16_d128_q128_kv128 bwd_wgmmaws_bf16_d64_q128_kv128 fwd_wgmmapp_bf16_d128_q128_kv128 \
         fwd_wgmmapp_bf16_d64_q128_kv128; do
  ab_sass "$f" .gpupack/var/main90.fatbin .gpupack/var/u.fatbin
done
ab_save
ab_el "2. checks on U"
ab_checks /tmp/pu
ab_el "3. main (A) and U, four rounds"
ab_rounds 4 /tmp/pa A /tmp/pu U causal-8k-d128 causal-16k-d128 "gqa-32k-d128|--kv-heads 8" docs8-16k-d128 \
  window1024-16k-d128 docs64-32k-d128 causal-8k-d64 causal-16k-d64 "gqa-32k-d64|--kv-heads 8" docs8-16k-d64
ab_el done
