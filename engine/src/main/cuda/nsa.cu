// Native Sparse Attention, selected branch: each query token t of kv-head hkv attends the keys of its own short list
// of kv-blocks (block_indices [B, T, Hkv, S]), causally (key <= t), shared by the G = H / Hkv query heads of the
// group. Q, K, V, O, dO, dQ, dK, dV use saw's head-major layout [B, heads, T, D]; LSE and Dsum are [B, H, T].
//
// Two forward loop orders (NsaGpu.Forward; AUTO = per-block for G <= 8, warp above, as measured on the H200) and one
// backward:
//   nsa_fwd_warp_*  warp order (after the backward): one warp per (token, 16 heads) streaming the token's own blocks
//              from block_indices / block_counts, no tables, no CTA barriers.
//   nsa_fwd_block_* + nsa_merge_*  per-block order (at the end of the file): K and V once per kv-block, a partial O
//              and (max, sum) per (token, head, choice) written once, then a per-row merge into O and LSE.
//   nsa_bwd_chunked_*  one CTA per work item (b, hkv, kv-block, a range of the tokens that chose it, within one token
//              chunk): K and V stay in shared memory while it gathers, 64 rows (token x G heads) at a time, the rows
//              of those tokens, accumulating dK and dV in registers and adding them to fp32 accumulators at the end
//              (a block's tokens span several chunks); dQ is added to an fp32 accumulator with vector atomics as in
//              attention_bwd.cu. bwd_dq_* converts all three. Dsum comes from bwd_pre_*.
// Retired orders (docs/kernel-notes.md, NSA section; they stay in git history): the per-kv-block forward of FSA
// (stats pass, LSE, P V with fp32 atomics), the tile-order forward (a CTA per 64 rows over the union of their tokens'
// blocks) and the unchunked backward (one CTA per kv-block, heaviest first, dK and dV stored): each measured slower.
//
// This file is included after attention_bwd.cu (warp_abt, warp_ds_t, add4_pair) by saw_attention.cu.
//
// Host tables (saw.engine.gpu.NsaTables), per plane = b * Hkv + hkv:
//   colTok[]   tokens that chose (plane, kvBlock), ascending, block after block (the reverse index)
//   colSlot[]  per colTok entry, the slot of the block in that token's list (per-block forward)
//   items[]    work items, three ints each: plane * nkv + kvBlock, then a range [begin, end) of colTok; plane-major,
//              then token chunk, then kv-block (one list for the per-block forward, one for the backward)

#include "tile.cuh"

// What every NSA kernel family is built for: element type and head dim (X(TN, T, D)), and kv-block size
// (X(TN, T, D, BKV)); each family's instantiation list goes through these two.
#define SAW_NSA_HEADS(X) X(bf16, __nv_bfloat16, 64) X(bf16, __nv_bfloat16, 128) X(fp16, __half, 64) X(fp16, __half, 128)
#define SAW_NSA_BLOCKS(X, TN, T, D) X(TN, T, D, 32) X(TN, T, D, 64) X(TN, T, D, 128)

namespace saw {

constexpr int NSA_ROWS = 64;

// A work item of the per-block orders (items[]: plane * nkv + kv-block, then a range [begin, end) of colTok): its
// rows, NSA_ROWS per step, are the tokens colTok[begin .. end) x the G heads of the plane's group, row idx being list
// entry begin + idx / G and head idx % G. The kernels walk the rows with NsaRowCursor instead of dividing per row (the
// divisions were a third of the per-block forward's instructions). The chunked mma.sync backward keeps its own 64-bit
// copy of this arithmetic.
struct NsaItem {
    int begin, tokens, plane, b, hkv, G, kv0, rows, steps;

    __device__ __forceinline__ NsaItem(int entry, int begin_, int end, int H, int Hkv, int nkv, int bkv) {
        begin = begin_;
        tokens = end - begin_;
        const int kb = entry % nkv;
        plane = entry / nkv;
        b = plane / Hkv;
        hkv = plane % Hkv;
        G = H / Hkv;
        kv0 = kb * bkv;
        rows = (end - begin) * G;
        steps = (rows + NSA_ROWS - 1) / NSA_ROWS;
    }

    // b * H + h of head h of the group
    __device__ __forceinline__ int bh(int h, int H) const { return b * H + hkv * G + h; }

    // where the group's first head starts in a [B, H, T, D] tensor; head h's row of token t is h * T * D + t * D past it
    __device__ __forceinline__ long long groupStart(int H, int Tn, int D) const {
        return ((long long)b * H + hkv * G) * Tn * D;
    }

    // tokens ascend within an item: below its first token's block every key precedes every row's token, so only an
    // item whose block reaches past it needs the causal test
    __device__ __forceinline__ bool causal(const int* colTok, int bkv) const {
        return steps > 0 && kv0 + bkv - 1 > colTok[begin];
    }

    // the per-block forward's row for head h of token t's choice in slot `slot`: partial row
    // (((b * T + t) * Hkv + hkv) * S + slot) * G + head
    __device__ __forceinline__ int partialRow(int h, int token, int slot, int Tn, int Hkv, int S) const {
        return ((((b * Tn + token) * Hkv + hkv) * S + slot) * G) + h;
    }
};

// A move by a fixed number of rows, split once into whole list entries and a remainder of heads.
struct NsaRowStride {
    int e, h;
    __device__ __forceinline__ NsaRowStride(int rows, int G) : e(rows / G), h(rows % G) {}
};

// Row idx of an item as (list entry from the item's first, head): a thread that gathers rows r, r + k, r + 2k, ... of
// every step moves its cursor by strides instead of dividing each row's index by G.
struct NsaRowCursor {
    int e, h;
    __device__ __forceinline__ NsaRowCursor(int idx, int G) : e(idx / G), h(idx % G) {}
    __device__ __forceinline__ void advance(NsaRowStride by, int G) {
        e += by.e;
        h += by.h;
        if (h >= G) {
            h -= G;
            ++e;
        }
    }
};

// How THREADS threads of a per-block kernel walk an item's rows, NSA_ROWS a step: thread tid gathers 16-byte chunk
// column tid % CHUNKS of rows tid / CHUNKS + k * ROW_STEP of each step (k < PER_THREAD), and thread tid < NSA_ROWS
// fills row tid's tables. `next` is the thread's first gathered row of the next step, `table` its table row.
template <int THREADS, int D>
struct NsaGather {
    static constexpr int CHUNKS = D / 8;
    static constexpr int ROW_STEP = THREADS / CHUNKS;
    static constexpr int PER_THREAD = NSA_ROWS / ROW_STEP;
    const NsaRowStride byRow, byStep;
    NsaRowCursor next, table;
    const long long groupOff, headStride;

    __device__ __forceinline__ NsaGather(const NsaItem& item, int tid, int H, int Tn)
        : byRow(ROW_STEP, item.G), byStep(NSA_ROWS, item.G), next(tid / CHUNKS, item.G), table(tid, item.G),
          groupOff(item.groupStart(H, Tn, D) + (tid % CHUNKS) * 8), headStride((long long)Tn * D) {}

    // the thread's chunk of row `at` in a [B, H, T, D] tensor of the item's group, less the row's token * D
    __device__ __forceinline__ long long headOffset(NsaRowCursor at) const { return groupOff + at.h * headStride; }
};

// One work item: plane * nkv + kv-block; its rows are the tokens colTok[begin .. end) x G heads. The block's other
// tokens belong to other items (other token chunks), so dK and dV are added to fp32 accumulators dKacc / dVacc
// (unscaled) and converted afterwards.
template <typename T, int D, int BKV, bool CAPPED>
__device__ __forceinline__ void nsa_bwd(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V,
                                        const T* __restrict__ dO, const float* __restrict__ LSE,
                                        const float* __restrict__ Dsum, float* __restrict__ dQacc,
                                        float* __restrict__ dKacc, float* __restrict__ dVacc, int item, int begin,
                                        int end, const int* __restrict__ colTok, int H, int Hkv, int Tn, int nkv,
                                        float scale, float softcap) {
    constexpr int QS = NSA_ROWS;
    constexpr int WARPS = BKV / 16;
    constexpr int THREADS = WARPS * 32;
    constexpr int NQ = QS / 8;
    constexpr int DB = D / 8;
    constexpr int CHUNKS = D / 8;
    constexpr int DQ_UNITS = (QS / 16) * (D / 32);

    extern __shared__ __align__(128) unsigned char smem[];
    T* sK = reinterpret_cast<T*>(smem);
    T* sV = sK + BKV * D;
    T* sQ = sV + BKV * D;      // 2 stages of QS x D
    T* sdO = sQ + 2 * QS * D;  // 2 stages
    T* sdS = sdO + 2 * QS * D; // BKV x QS, dS transposed
    float* sLse = reinterpret_cast<float*>(sdS + BKV * QS);  // 2 stages of QS
    float* sDs = sLse + 2 * QS;
    int* sTok = reinterpret_cast<int*>(sDs + 2 * QS);  // 2 stages: token of each row, -1 past the list
    int* sBh = sTok + 2 * QS;                          // 2 stages: b * H + h of each row

    const int tid = threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int g = lane >> 2;
    const int t = lane & 3;

    const int kb = item % nkv;
    const int plane = item / nkv;
    const int b = plane / Hkv;
    const int hkv = plane % Hkv;
    const int G = H / Hkv;
    const int kv0 = kb * BKV;
    const long long rows = (long long)(end - begin) * G;
    const int steps = (int)((rows + QS - 1) / QS);

    const float sl2 = CAPPED ? LOG2E : scale * LOG2E;
    const float capIn = CAPPED ? scale / softcap : 0.f;

    // row r of step `step`: list entry (step * QS + r) / G, head (step * QS + r) % G
    auto loadStep = [&](int step, int stage) {
        for (int i = tid; i < QS * CHUNKS; i += THREADS) {
            const int r = i / CHUNKS;
            const int c = i % CHUNKS;
            const long long idx = (long long)step * QS + r;
            const bool valid = idx < rows;
            long long off = 0;
            if (valid) {
                const int token = colTok[begin + (int)(idx / G)];
                off = (((long long)b * H + hkv * G + (int)(idx % G)) * Tn + token) * D + c * 8;
            }
            cp_async16(smem_u32(sQ + stage * QS * D + Swizzled<D>::chunk(r, c)), Q + off, valid);
            cp_async16(smem_u32(sdO + stage * QS * D + Swizzled<D>::chunk(r, c)), dO + off, valid);
        }
        for (int r = tid; r < QS; r += THREADS) {
            const long long idx = (long long)step * QS + r;
            const bool valid = idx < rows;
            int token = -1;
            int bh = 0;
            long long at = 0;
            if (valid) {
                token = colTok[begin + (int)(idx / G)];
                bh = b * H + hkv * G + (int)(idx % G);
                at = (long long)bh * Tn + token;
            }
            cp_async4(smem_u32(sLse + stage * QS + r), LSE + at, valid);
            cp_async4(smem_u32(sDs + stage * QS + r), Dsum + at, valid);
            sTok[stage * QS + r] = token;
            sBh[stage * QS + r] = bh;
        }
    };

    const size_t kvHead = (size_t)plane * Tn * D;
    load_tile<BKV, D, THREADS>(sK, K + kvHead, kv0, Tn, tid);
    load_tile<BKV, D, THREADS>(sV, V + kvHead, kv0, Tn, tid);
    if (steps > 0) loadStep(0, 0);
    cp_async_commit();

    float dk[DB][4];
    float dv[DB][4];
#pragma unroll
    for (int d = 0; d < DB; ++d) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            dk[d][e] = 0.f;
            dv[d][e] = 0.f;
        }
    }

    const int r0 = warp * 16;  // this warp's kv rows within the block
    for (int it = 0; it < steps; ++it) {
        const int stage = it & 1;
        if (it + 1 < steps) loadStep(it + 1, stage ^ 1);
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();

        const T* tQ = sQ + stage * QS * D;
        const T* tdO = sdO + stage * QS * D;
        const float* tLse = sLse + stage * QS;
        const float* tDs = sDs + stage * QS;
        const int* tTok = sTok + stage * QS;
        const int* tBh = sBh + stage * QS;

        // S^T = K Q^T for this warp's 16 keys; column j is gathered row j of the step
        float s[NQ][4];
        warp_abt<T, D, NQ>(s, sK, tQ, r0, lane);
        float dcap[CAPPED ? NQ : 1][4];
#pragma unroll
        for (int n = 0; n < NQ; ++n) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float z = s[n][e];
                if constexpr (CAPPED) {
                    const float th = tanhf(z * capIn);
                    z = softcap * th;
                    dcap[n][e] = 1.f - th * th;
                }
                const int j = n * 8 + 2 * t + (e & 1);
                const int key = kv0 + r0 + g + 8 * (e >> 1);
                // select, not multiply: a row whose LSE is -inf (it attended nothing) must give 0, not NaN
                s[n][e] = key <= tTok[j] ? exp2_approx(fmaf(z, sl2, -tLse[j] * LOG2E)) : 0.f;
            }
        }
        // dV += P^T dO
        warp_sb_add<T, D, QS, NQ>(dv, s, tdO, lane);
        // dP^T = V dO^T; dS^T
        float dp[NQ][4];
        warp_abt<T, D, NQ>(dp, sV, tdO, r0, lane);
        warp_ds_t<CAPPED>(s, dp, dcap, tDs, t);
        warp_store_dst<T, QS, NQ>(sdS, s, r0, g, t);
        // dK += dS^T Q
        warp_sb_add<T, D, QS, NQ>(dk, s, tQ, lane);
        __syncthreads();
        // dQ += dS K for the gathered rows, 16 x 32 pieces over the warps, fp32 vector atomics
        for (int u = warp; u < DQ_UNITS; u += WARPS) {
            const int m0 = (u % (QS / 16)) * 16;
            const int d0 = (u / (QS / 16)) * 32;
            float acc[4][4];
#pragma unroll
            for (int n = 0; n < 4; ++n) {
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[n][e] = 0.f;
            }
#pragma unroll
            for (int kc = 0; kc < BKV / 16; ++kc) {
                uint32_t a[4];
                ldmatrix_x4_trans(a, addr_b_order<QS>(sdS, kc * 16, m0 / 8, lane));
#pragma unroll
                for (int d2 = 0; d2 < 2; ++d2) {
                    uint32_t bk[4];
                    ldmatrix_x4_trans(bk, addr_a_order<D>(sK, kc * 16, d0 / 8 + d2 * 2, lane));
                    Elem<T>::mma(acc[2 * d2], a, bk[0], bk[1]);
                    Elem<T>::mma(acc[2 * d2 + 1], a, bk[2], bk[3]);
                }
            }
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int j = m0 + g + 8 * r;
                const int token = tTok[j];
                float* dst = dQacc + ((long long)tBh[j] * Tn + (token < 0 ? 0 : token)) * D + d0;
#pragma unroll
                for (int np = 0; np < 2; ++np) {
                    add4_pair(dst + np * 16, acc[2 * np][2 * r], acc[2 * np][2 * r + 1], acc[2 * np + 1][2 * r],
                              acc[2 * np + 1][2 * r + 1], t, token >= 0);
                }
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int kv = kv0 + r0 + g + 8 * r;
        const bool valid = kv < Tn;
        float* k = dKacc + kvHead + (size_t)(valid ? kv : 0) * D;
        float* v = dVacc + kvHead + (size_t)(valid ? kv : 0) * D;
#pragma unroll
        for (int np = 0; np < DB / 2; ++np) {
            add4_pair(k + np * 16, dk[2 * np][2 * r], dk[2 * np][2 * r + 1], dk[2 * np + 1][2 * r],
                      dk[2 * np + 1][2 * r + 1], t, valid);
            add4_pair(v + np * 16, dv[2 * np][2 * r], dv[2 * np][2 * r + 1], dv[2 * np + 1][2 * r],
                      dv[2 * np + 1][2 * r + 1], t, valid);
        }
    }
}

}  // namespace saw

// Items (plane * nkv + kv-block, begin, end) in the per-block forward's work order over the backward's own token
// chunks, so the Q and dO rows gathered and the dQ rows added to by the CTAs resident at one time lie in one token
// chunk (L2).
#define SAW_NSA_BWD(NAME, T, D, BKV, CAPPED)                                                                           \
    extern "C" __global__ void __launch_bounds__(BKV / 16 * 32) NAME(                                                \
        const T* Q, const T* K, const T* V, const T* dO, const float* LSE, const float* Dsum, float* dQacc,           \
        float* dKacc, float* dVacc, const int* items, const int* colTok, int H, int Hkv, int Tn, int nkv, float scale, \
        float softcap) {                                                                                             \
        saw::nsa_bwd<T, D, BKV, CAPPED>(Q, K, V, dO, LSE, Dsum, dQacc, dKacc, dVacc, items[3 * blockIdx.x],            \
                                        items[3 * blockIdx.x + 1], items[3 * blockIdx.x + 2], colTok, H, Hkv, Tn, nkv, \
                                        scale, softcap);                                                             \
    }

#define SAW_NSA_BWD_BLOCK(TN, T, D, BKV)                                 \
    SAW_NSA_BWD(nsa_bwd_chunked_##TN##_d##D##_b##BKV, T, D, BKV, false) \
    SAW_NSA_BWD(nsa_bwd_chunked_##TN##_d##D##_b##BKV##_softcap, T, D, BKV, true)

#define SAW_NSA_BWDS(TN, T, D) SAW_NSA_BLOCKS(SAW_NSA_BWD_BLOCK, TN, T, D)

SAW_NSA_HEADS(SAW_NSA_BWDS)

// ---- Hopper backward (sm_90a), blocks 64 and 128: the chunked backward's items and outputs, warpgroup MMA -------
//   nsa_bwd_wgmma_*_b{64,128}  one warpgroup per 64 kv rows of the block, one CTA per work item: K and V of the block
//                        in wgmma's 128-byte swizzle, the item's rows gathered 64 at a time (double-buffered cp.async
//                        by all the CTA's threads) in the same swizzle, so that the five products of a step
//                        (S^T = K Q^T, dP^T = V dO^T, dV += P^T dO, dQ = dS K, dK += dS^T Q) are wgmmas reading shared
//                        memory directly: the products of BwdWg::step (attention_bwd_wgmma.cu) with the causal test
//                        per gathered row (key <= its token) instead of the bit tables. dQ (added with fp32 vector
//                        atomics, at D = 128 staged through shared memory so each add covers whole lines of two rows;
//                        at D = 64 as nsa_bwd_chunked_* adds them): at D = 128 in 64-column halves over all the block's kv rows, both
//                        halves by the one warpgroup at block 64 (registers: dK and dV hold 128 a thread), one each at
//                        block 128; at D = 64 each warpgroup adds its own kv rows' share. Shared memory at D = 128:
//                        108 KB at block 64 (two CTAs, 8 warps, per SM, as the mma.sync kernel), 144 KB at block 128.
//                        The copies and adds carry L2 priorities: K, V and the dK / dV adds evict_first, the gathered
//                        Q / dO rows and the dQ adds evict_last (see the kernel).
//   nsa_bwd_wgmma_*_dqn      the same, adding dQ (scaled) in its element type straight into dQ instead of an fp32
//                        accumulator (NsaGpu.DqAccumulator.NATIVE, opt-in): half the bytes of the adds that bound the
//                        kernel, each dQ element rounded at each of its adds.
//   nsa_bwd_wgmma_*_d128_b64_kvs  fp32 dQ as the first, and each item's dK and dV added whole lines at a time through K
//                        and V's shared memory after a barrier at the item's end (warp_rows_red): the host picks it
//                        where a plane's fp32 dK and dV outgrow L2 (NsaGpu.KV_STAGED_MIN_BYTES).
namespace saw {
constexpr int NSA_WG_THREADS = 128;

// dQ added in its own element type (nsa_bwd_wgmma_*_dqn): four values as two packed pairs, 8 bytes instead of fp32's 16,
// with an L2 eviction policy. The adds are the largest traffic into L2 (an upper bound without half of them ran
// 1.2-1.35x faster on an H100), at the cost of rounding the running sum to T at each of the S adds.
template <typename T>
__device__ __forceinline__ void red_add4_native(T* at, float4 v, uint64_t policy);

template <>
__device__ __forceinline__ void red_add4_native<__nv_bfloat16>(__nv_bfloat16* at, float4 v, uint64_t policy) {
    asm volatile("red.global.add.noftz.L2::cache_hint.v2.bf16x2 [%0], {%1, %2}, %3;\n" ::"l"(at),
                 "r"(Elem<__nv_bfloat16>::pack(v.x, v.y)), "r"(Elem<__nv_bfloat16>::pack(v.z, v.w)), "l"(policy)
                 : "memory");
}

template <>
__device__ __forceinline__ void red_add4_native<__half>(__half* at, float4 v, uint64_t policy) {
    asm volatile("red.global.add.noftz.L2::cache_hint.v2.f16x2 [%0], {%1, %2}, %3;\n" ::"l"(at),
                 "r"(Elem<__half>::pack(v.x, v.y)), "r"(Elem<__half>::pack(v.z, v.w)), "l"(policy)
                 : "memory");
}

// add4_pair (attention_bwd.cu) into a T row: the same exchange, then red_add4_native
template <typename T>
__device__ __forceinline__ void add4_pair_native(T* dst, float a0, float a1, float b0, float b1, int t, bool valid,
                                                 uint64_t policy) {
    const bool odd = t & 1;
    const float r0 = __shfl_xor_sync(0xffffffffu, odd ? a0 : b0, 1);
    const float r1 = __shfl_xor_sync(0xffffffffu, odd ? a1 : b1, 1);
    if (!valid) return;
    const float4 v = odd ? make_float4(r0, r1, b0, b1) : make_float4(a0, a1, r0, r1);
    red_add4_native<T>(odd ? dst + 8 + 2 * (t - 1) : dst + 2 * t, v, policy);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Where 16-byte chunk c of row lr of a staged fragment lies: XOR-swizzled so that the fragment's stores (8 rows x 32
// bytes) and the row reads (whole rows of 16-byte chunks) each touch every bank the fewest times
__device__ __forceinline__ int staged_chunk(int c, int lr) { return c ^ ((lr & 3) << 1); }

// Adds a warp's 16 rows x COLS of a wgmma accumulator fragment (acc[4 j + 2 r + e]: row (lane >> 2) + 8 r, column
// 8 j + 2 (lane & 3) + e) to fp32 rows in global memory whole lines at a time: the fragment goes to `region` (16 x COLS
// floats of shared memory only this warp touches until it returns) and comes back by rows, 16 bytes a lane, so that
// each vector add of the warp covers whole 128-byte lines instead of add4_pair's 64-byte halves of eight rows.
// rowAt(lr) is row lr's first element in global memory, nullptr to skip the row.
template <int COLS, typename RowAt>
__device__ __forceinline__ void warp_rows_red(float* region, const float (&acc)[COLS / 2], int lane, RowAt rowAt,
                                              uint64_t policy) {
    const int t = lane & 3;
#pragma unroll
    for (int j = 0; j < COLS / 8; ++j) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int lr = (lane >> 2) + 8 * r;
            *reinterpret_cast<float2*>(region + lr * COLS + staged_chunk(2 * j + (t >> 1), lr) * 4 + (t & 1) * 2) =
                make_float2(acc[4 * j + 2 * r], acc[4 * j + 2 * r + 1]);
        }
    }
    __syncwarp();
    constexpr int LANES = COLS / 4;    // lanes per row
    constexpr int ROWS = 32 / LANES;  // rows per pass
#pragma unroll
    for (int i = 0; i < 16 / ROWS; ++i) {
        const int lr = ROWS * i + lane / LANES;
        const int c = lane % LANES;
        const float4 v = *reinterpret_cast<const float4*>(region + lr * COLS + staged_chunk(c, lr) * 4);
        float* at = rowAt(lr);
        if (at != nullptr) red_add4(at + c * 4, v, policy);
    }
    __syncwarp();  // the region may be rewritten
}

// NATIVE: dQ is added, scaled, straight into dQ (T, zeroed beforehand) instead of an fp32 accumulator. KV_STAGED: each
// item's dK and dV are added whole lines at a time through shared memory, after a barrier at the item's end; that paid
// only where a plane's fp32 dK and dV outgrow L2 (NsaGpu.KV_STAGED_MIN_BYTES), so it is a variant the host picks.
template <typename T, int D, int BKV, bool CAPPED, bool NATIVE, bool KV_STAGED>
__device__ __forceinline__ void nsa_bwd_wgmma(const T* __restrict__ Q, const T* __restrict__ K,
                                              const T* __restrict__ V, const T* __restrict__ dO,
                                              const float* __restrict__ LSE, const float* __restrict__ Dsum,
                                              void* __restrict__ dQout, float* __restrict__ dKacc,
                                              float* __restrict__ dVacc, int item, int begin, int end,
                                              const int* __restrict__ colTok, int H, int Hkv, int Tn, int nkv,
                                              float scale, float softcap) {
    constexpr int WGS = BKV / 64;  // warpgroups
    constexpr int THREADS = WGS * NSA_WG_THREADS;
    constexpr int QS = NSA_ROWS;
    constexpr int CHUNKS = D / 8;
    constexpr int SR = QS / 2;  // score accumulators per thread: 64 kv x 64 rows
    constexpr int OR = D / 2;   // dK and dV accumulators per thread: 64 kv x D
    constexpr uint32_t PANEL = QS * 128;          // bytes of one 64-column panel of a Q or a dO step
    constexpr uint32_t KV_PANEL = BKV * 128;      // bytes of one 64-column panel of K or V
    constexpr uint32_t TILE_BYTES = QS * D * 2;   // one Q or dO stage
    using Tile = Sw128<QS, D>;
    using DsTile = Sw128<BKV, QS>;
    using Parts = BwdStepParts<T, D, CAPPED>;

    extern __shared__ unsigned char smemRaw[];
    const uint32_t rawAddr = smem_u32(smemRaw);
    T* sK = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    T* sV = sK + BKV * D;
    T* sQ = sV + BKV * D;       // 2 stages
    T* sdO = sQ + 2 * QS * D;   // 2 stages
    T* sdS = sdO + 2 * QS * D;  // BKV x QS, dS transposed
    float* sLse = reinterpret_cast<float*>(sdS + BKV * QS);  // 2 stages of QS
    float* sDs = sLse + 2 * QS;
    int* sTok = reinterpret_cast<int*>(sDs + 2 * QS);  // 2 stages: token of each row, -1 past the item
    int* sRow = sTok + 2 * QS;  // 2 stages: (b * H + h) * T + token of each row, its row of dQ (0 past the item)
    const uint32_t aK = smem_u32(sK);
    const uint32_t aV = smem_u32(sV);
    const uint32_t aQ = smem_u32(sQ);
    const uint32_t adO = smem_u32(sdO);
    const uint32_t adS = smem_u32(sdS);

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int t = lane & 3;
    const int wg = tid >> 7;
    const int qRow0 = ((tid >> 5) & 3) * 16 + (lane >> 2);  // this thread's first q row of dQ; + 8 the other
    const int row0 = wg * 64 + qRow0;                       // its first kv row; + 8 the other

    // an item's rows fit 32 bits: NsaGpu.blockItemTokens caps an item at 2048 rows (at G rows past G = 2048)
    const NsaItem it0(item, begin, end, H, Hkv, nkv, BKV);
    const int kv0 = it0.kv0;
    const int steps = it0.steps;
    const bool causal = it0.causal(colTok, BKV);

    const float sl2 = CAPPED ? LOG2E : scale * LOG2E;
    const float capIn = CAPPED ? scale / softcap : 0.f;

    // L2 priorities (H100, 2026-12-06: 1.01-1.04x): a token chunk's items gather its Q and dO rows and add to its dQ
    // rows again and again, while each item's K and V and its dK / dV adds are touched once per chunk; without the
    // priorities those streamed lines pushed the chunk's rows out of L2 (40.8 GB of DRAM traffic at T = 64K)
    const uint64_t streamed = l2_evict_first();
    const uint64_t reused = l2_evict_last();
    // the steps' rows in order (NsaGather)
    using Gather = NsaGather<THREADS, D>;
    Gather rows(it0, tid, H, Tn);
    auto loadStep = [&](int stage) {
        T* q = sQ + stage * QS * D;
        T* g = sdO + stage * QS * D;
        NsaRowCursor at = rows.next;
#pragma unroll
        for (int k = 0; k < Gather::PER_THREAD; ++k) {
            const int r = tid / CHUNKS + k * Gather::ROW_STEP;
            const bool valid = at.e < it0.tokens;
            long long off = 0;
            if (valid) off = rows.headOffset(at) + (long long)colTok[begin + at.e] * D;
            cp_async16(smem_u32(q + Tile::chunk(r, tid % CHUNKS)), Q + off, valid, reused);
            cp_async16(smem_u32(g + Tile::chunk(r, tid % CHUNKS)), dO + off, valid, reused);
            at.advance(rows.byRow, it0.G);
        }
        rows.next.advance(rows.byStep, it0.G);
        if (tid < QS) {
            const bool valid = rows.table.e < it0.tokens;
            int token = -1;
            int at = 0;  // below B * H * T: the dQ accumulator holds D floats for each
            if (valid) {
                token = colTok[begin + rows.table.e];
                at = it0.bh(rows.table.h, H) * Tn + token;
            }
            cp_async4(smem_u32(sLse + stage * QS + tid), LSE + at, valid);
            cp_async4(smem_u32(sDs + stage * QS + tid), Dsum + at, valid);
            sTok[stage * QS + tid] = token;
            sRow[stage * QS + tid] = at;
            rows.table.advance(rows.byStep, it0.G);
        }
    };

    const size_t kvHead = (size_t)it0.plane * Tn * D;
    load_tile_sw128<BKV, D, THREADS>(sK, K + kvHead, kv0, Tn, tid, streamed);
    load_tile_sw128<BKV, D, THREADS>(sV, V + kvHead, kv0, Tn, tid, streamed);
    if (steps > 0) loadStep(0);
    cp_async_commit();

    float dk[OR];
    float dv[OR];
#pragma unroll
    for (int i = 0; i < OR; ++i) {
        dk[i] = 0.f;
        dv[i] = 0.f;
    }

    for (int it = 0; it < steps; ++it) {
        const int stage = it & 1;
        cp_async_wait<0>();
        fence_proxy_async();
        __syncthreads();  // this step's rows are in; every wgmma and read of step it - 1 is done
        if (it + 1 < steps) loadStep(stage ^ 1);  // into the stage step it - 1 read
        cp_async_commit();

        const uint32_t qStep = aQ + stage * TILE_BYTES;
        const uint32_t doStep = adO + stage * TILE_BYTES;
        const SharedRowStats stats{sLse + stage * QS, sDs + stage * QS};
        const int* tTok = sTok + stage * QS;
        const int* tRow = sRow + stage * QS;

        // S^T = K Q^T and dP^T = V dO^T for this warpgroup's 64 kv rows, both operands K-major, one commit group each
        float s[SR];
        float dp[SR];
        const uint32_t rowsW = (uint32_t)wg * 64 * 128;
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t in = (kc & 3) * 32;
            Wgmma<T, 64>::ss(s, sw128_desc(aK + rowsW + (kc >> 2) * KV_PANEL + in, 16, 1024),
                             sw128_desc(qStep + (kc >> 2) * PANEL + in, 16, 1024), kc > 0 ? 1 : 0);
        }
        wgmma_commit();
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t in = (kc & 3) * 32;
            Wgmma<T, 64>::ss(dp, sw128_desc(aV + rowsW + (kc >> 2) * KV_PANEL + in, 16, 1024),
                             sw128_desc(doStep + (kc >> 2) * PANEL + in, 16, 1024), kc > 0 ? 1 : 0);
        }
        wgmma_commit();
        wgmma_wait<1>();
        fence_regs(s);

        // P^T = exp(logits - LSE), zero for keys past the row's token (a select, not a multiply: a row whose LSE is
        // -inf must give 0, not NaN)
        __half2 dcap[CAPPED ? SR / 2 : 1];
        Parts::pt(s, dcap, stats, t, sl2, capIn, softcap, [&](int n) {
            const int2 tok = *reinterpret_cast<const int2*>(tTok + n * 8 + 2 * t);
            return [=](int x, float pr) {
                const int key = kv0 + row0 + 8 * (x >> 1);
                return !causal || key <= ((x & 1) ? tok.y : tok.x) ? pr : 0.f;
            };
        });

        // dV += P^T dO; dS^T, packed, and stored for dQ while dV may still run
        uint32_t p[QS / 16][4];
        Parts::issueDv(dv, p, s, doStep);
        wgmma_wait<1>();  // dP^T has landed; dV may still run
        fence_regs(dp);
        uint32_t ds[QS / 16][4];
        Parts::template dsT<DsTile, false>(s, dp, dcap, stats, t, ds, sdS, row0);
        __syncthreads();  // the whole dS^T tile is in shared memory

        // dQ = dS K in 64-column halves (dS^T read MN-major, K N-major), each added to the gathered rows' fp32
        // accumulators while the next product runs; dK += dS^T Q (Q read N-major) behind the first half. D = 128:
        // half h over all kv rows (k16 steps of 16 rows, 2048 bytes); D = 64: the one half over this warpgroup's rows.
        constexpr int DQ_STEPS = D == 128 ? BKV / 16 : 4;
        const uint32_t dqFirst = D == 128 ? 0u : rowsW;
        auto issueDq = [&](float (&dq)[32], int half) {
#pragma unroll
            for (int kc = 0; kc < DQ_STEPS; ++kc) {
                const uint32_t rows = dqFirst + kc * 16 * 128;
                WgmmaSs64<T>::template run<1, 1>(dq, sw128_desc(adS + rows, 64 * 128, 1024),
                                                 sw128_desc(aK + half * KV_PANEL + rows, KV_PANEL, 1024),
                                                 kc > 0 ? 1 : 0);
            }
            wgmma_commit();
        };
        auto addDq = [&](const float (&dq)[32], int half) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int j = qRow0 + 8 * r;
                const int token = tTok[j];
                const long long at = (long long)tRow[j] * D + half * 64;
#pragma unroll
                for (int np = 0; np < 4; ++np) {
                    if constexpr (NATIVE) {
                        add4_pair_native(static_cast<T*>(dQout) + at + np * 16, dq[8 * np + 2 * r] * scale,
                                         dq[8 * np + 2 * r + 1] * scale, dq[8 * np + 4 + 2 * r] * scale,
                                         dq[8 * np + 4 + 2 * r + 1] * scale, t, token >= 0, reused);
                    } else {
                        add4_pair<true>(static_cast<float*>(dQout) + at + np * 16, dq[8 * np + 2 * r],
                                        dq[8 * np + 2 * r + 1], dq[8 * np + 4 + 2 * r], dq[8 * np + 4 + 2 * r + 1], t,
                                        token >= 0, reused);
                    }
                }
            }
        };
        // STAGED: each warp writes its 16 rows of a dQ half to 4 KB of shared memory that this step no longer reads
        // (the dO stage once dV has landed, then dS^T once every dQ product has), and reads them back a whole row per
        // half-warp, so that every vector add of a warp covers two rows' full 128-byte lines instead of eight rows'
        // 64-byte halves. Chunks of 16 bytes are XOR-swizzled by row so that both the fragment stores and the row
        // reads use each bank the fewest times. Only fp32 adds at D = 128: staged, D = 64 and the native adds ran
        // slower (docs/kernel-notes.md, "Whole lines for the dQ adds").
        constexpr int IN_DO = QS * D * 2 / 4096;  // warps whose 4 KB lie in the dO stage; the rest in dS^T
        float* const region = warp < IN_DO ? reinterpret_cast<float*>(sdO + stage * QS * D) + warp * 1024
                                           : reinterpret_cast<float*>(sdS) + (warp - IN_DO) * 1024;
        auto addDqStaged = [&](const float (&dq)[32], int half) {
            if constexpr (KV_STAGED) {
                // the same adds through the helper: here ptxas keeps them without spills (4 bytes with the loop below),
                // while in the plain variant the helper's code ran 1.5-2.5% slower than the loop (thirty-first session)
                const int base = (warp & 3) * 16;
                warp_rows_red<64>(region, dq, lane, [&](int lr) -> float* {
                    const int j = base + lr;
                    return tTok[j] < 0 ? nullptr : static_cast<float*>(dQout) + (long long)tRow[j] * D + half * 64;
                }, reused);
            } else {
#pragma unroll
                for (int j = 0; j < 8; ++j) {
#pragma unroll
                    for (int r = 0; r < 2; ++r) {
                        const int lr = (lane >> 2) + 8 * r;
                        const int chunk = staged_chunk(2 * j + (t >> 1), lr);
                        *reinterpret_cast<float2*>(region + lr * 64 + chunk * 4 + (t & 1) * 2) =
                            make_float2(dq[4 * j + 2 * r], dq[4 * j + 2 * r + 1]);
                    }
                }
                __syncwarp();
                const int c = lane & 15;
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    const int lr = 2 * i + (lane >> 4);
                    const float4 v = *reinterpret_cast<const float4*>(region + lr * 64 + staged_chunk(c, lr) * 4);
                    const int j = (warp & 3) * 16 + lr;
                    const int token = tTok[j];
                    if (token < 0) continue;
                    red_add4(static_cast<float*>(dQout) + (long long)tRow[j] * D + half * 64 + c * 4, v, reused);
                }
                __syncwarp();  // the next half rewrites the region
            }
        };
        constexpr bool STAGED = !NATIVE && D == 128;
        static_assert(!STAGED || IN_DO + BKV * QS * 2 / 4096 >= THREADS / 32, "a 4 KB region for every warp");
        // the first (or only) half: at block 128 and D = 128 warpgroup wg makes half wg
        const int half0 = D == 128 && WGS == 2 ? wg : 0;
        float dq[32];
        wgmma_fence();
        issueDq(dq, half0);
        Parts::issueDk(dk, ds, qStep);
        wgmma_wait<1>();  // dV and the first dQ half have landed; dK may still run
        fence_regs(dv);
        fence_frags(p);
        fence_regs(dq);
        if constexpr (STAGED) {
            __syncthreads();  // every warp's dV and first dQ half have landed: the dO stage and dS^T are free
            addDqStaged(dq, half0);
        } else {
            addDq(dq, half0);
        }
        if constexpr (D == 128 && WGS == 1) {
            fence_regs(dq);
            wgmma_fence();
            issueDq(dq, 1);
            wgmma_wait<0>();
            fence_regs(dq);
            if constexpr (STAGED) {
                addDqStaged(dq, 1);
            } else {
                addDq(dq, 1);
            }
        }
        wgmma_wait<0>();
        fence_regs(dk);
        fence_frags(ds);
    }

    if constexpr (KV_STAGED) {
        // dK and dV whole lines at a time through K and V's shared memory (16 x D floats a warp: all of K and V's),
        // free once every warp's products have landed (each waited for its own) and K and V's copies are in (an item
        // without rows never waited for them)
        cp_async_wait<0>();
        __syncthreads();
        float* const mine = reinterpret_cast<float*>(sK) + warp * 16 * D;
        const int kvFirst = kv0 + wg * 64 + (warp & 3) * 16;
        auto rowsOf = [&](float* acc) {
            return [=](int lr) -> float* {
                const int kv = kvFirst + lr;
                return kv < Tn ? acc + kvHead + (size_t)kv * D : nullptr;
            };
        };
        warp_rows_red<D>(mine, dk, lane, rowsOf(dKacc), streamed);
        warp_rows_red<D>(mine, dv, lane, rowsOf(dVacc), streamed);
    } else {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int kv = kv0 + row0 + 8 * r;
            const bool valid = kv < Tn;
            float* k = dKacc + kvHead + (size_t)(valid ? kv : 0) * D;
            float* v = dVacc + kvHead + (size_t)(valid ? kv : 0) * D;
#pragma unroll
            for (int np = 0; np < D / 16; ++np) {
                add4_pair<true>(k + np * 16, dk[8 * np + 2 * r], dk[8 * np + 2 * r + 1], dk[8 * np + 4 + 2 * r],
                                dk[8 * np + 4 + 2 * r + 1], t, valid, streamed);
                add4_pair<true>(v + np * 16, dv[8 * np + 2 * r], dv[8 * np + 2 * r + 1], dv[8 * np + 4 + 2 * r],
                                dv[8 * np + 4 + 2 * r + 1], t, valid, streamed);
            }
        }
    }
}
#endif

}  // namespace saw

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SAW_NSA_BWD_WGMMA_BODY(T, D, BKV, CAPPED, NATIVE, KVS)                                                 \
    saw::nsa_bwd_wgmma<T, D, BKV, CAPPED, NATIVE, KVS>(Q, K, V, dO, LSE, Dsum, dQacc, dKacc, dVacc,            \
                                                       items[3 * blockIdx.x], items[3 * blockIdx.x + 1],      \
                                                       items[3 * blockIdx.x + 2], colTok, H, Hkv, Tn, nkv, scale, \
                                                       softcap);
#else
/* wgmma needs sm_90a; the host never launches this elsewhere */
#define SAW_NSA_BWD_WGMMA_BODY(T, D, BKV, CAPPED, NATIVE, KVS) __trap();
#endif

// dQacc: the fp32 accumulator, or with NATIVE dQ itself (T)
#define SAW_NSA_BWD_WGMMA(NAME, T, D, BKV, CAPPED, NATIVE, KVS)                                                       \
    extern "C" __global__ void __launch_bounds__(BKV / 64 * saw::NSA_WG_THREADS, 128 / BKV) NAME(                     \
        const T* Q, const T* K, const T* V, const T* dO, const float* LSE, const float* Dsum, float* dQacc,           \
        float* dKacc, float* dVacc, const int* items, const int* colTok, int H, int Hkv, int Tn, int nkv, float scale, \
        float softcap) {                                                                                             \
        SAW_NSA_BWD_WGMMA_BODY(T, D, BKV, CAPPED, NATIVE, KVS)                                                       \
    }

#define SAW_NSA_BWD_WGMMA_BLOCK(TN, T, D, BKV)                                                         \
    SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_##TN##_d##D##_b##BKV, T, D, BKV, false, false, false)            \
    SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_##TN##_d##D##_b##BKV##_softcap, T, D, BKV, true, false, false)   \
    SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_##TN##_d##D##_b##BKV##_dqn, T, D, BKV, false, true, false)       \
    SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_##TN##_d##D##_b##BKV##_softcap_dqn, T, D, BKV, true, true, false)

#define SAW_NSA_BWD_WGMMAS(TN, T, D) SAW_NSA_BWD_WGMMA_BLOCK(TN, T, D, 64) SAW_NSA_BWD_WGMMA_BLOCK(TN, T, D, 128)

SAW_NSA_HEADS(SAW_NSA_BWD_WGMMAS)
// dK and dV staged (KV_STAGED), fp32 dQ: measured only at block 64, D = 128
SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_bf16_d128_b64_kvs, __nv_bfloat16, 128, 64, false, false, true)
SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_bf16_d128_b64_softcap_kvs, __nv_bfloat16, 128, 64, true, false, true)
SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_fp16_d128_b64_kvs, __half, 128, 64, false, false, true)
SAW_NSA_BWD_WGMMA(nsa_bwd_wgmma_fp16_d128_b64_softcap_kvs, __half, 128, 64, true, false, true)

// ---- warp-order forward (the NSA paper's loop order), the default for G > 8 ----------------------------------------
//   nsa_fwd_warp_*  one warp per (b, hkv, token, group of 16 heads): the token's heads are the MMA's M dimension
//                   (G = 16 fills an m16n8k16 tile; smaller G leaves rows idle, larger G takes ceil(G / 16) warps).
//                   Each warp streams ITS OWN selected blocks, 16 keys at a time (K and V together, 8 KB at D = 128),
//                   through a private ring of NSA_WARP_STAGES slices of shared memory with cp.async, reading
//                   block_indices and block_counts directly (no host tables). Q stays in registers as A fragments,
//                   online softmax and O in registers; warps never wait for each other (only __syncwarp), so a CTA of
//                   4 warps is just a way to pack 2 CTAs (8 independent streams) onto an SM.
// Chunks past the token (key > t) are neither loaded nor computed; the chunk that holds t masks its later keys.
// Work items run plane-major (one kv head's K and V in L2 at a time), tokens descending (the short lists of the
// first tokens last).

namespace saw {

constexpr int NSA_WARP_WARPS = 4;
constexpr int NSA_WARP_KEYS = 16;   // keys per pipeline chunk
constexpr int NSA_WARP_STAGES = 3;  // chunks per warp ring: two in flight while one is computed

// The walk over a token's chunks: slot s of its list, chunk c of that block. Both the copier and the consumer keep one.
template <int BKV>
struct NsaChunkCursor {
    const int* list;  // block_indices of this (b, token, hkv)
    int count;
    int token;
    int slot;
    int kv0;     // first key of the current chunk, -1 when the walk is over
    int blkEnd;  // one past the last key of the current block this token may see

    __device__ __forceinline__ void start(const int* l, int c, int t) {
        list = l;
        count = c;
        token = t;
        slot = -1;
        nextBlock();
    }

    __device__ __forceinline__ void nextBlock() {
        kv0 = -1;
        while (++slot < count) {
            const int kb = __ldg(list + slot);
            if (kb >= 0 && kb * BKV <= token) {
                kv0 = kb * BKV;
                blkEnd = min(kv0 + BKV, token + 1);
                return;
            }
        }
    }

    __device__ __forceinline__ void advance() {
        kv0 += NSA_WARP_KEYS;
        if (kv0 >= blkEnd) nextBlock();
    }
};

// ---- A token's 16 heads as the m16n8k16 rows of one warp: what the warp order and the shared walk share ----------

// Q of rows g and g + 8 (q0: row g's place, lane's columns; row g + 8 lies 8 rows on) as A fragments; idle rows zero.
template <typename T, int D>
__device__ __forceinline__ void nsa_rows_q(uint32_t (&qa)[D / 16][4], const T* q0, size_t rowStride, bool has0,
                                           bool has1) {
    const T* q1 = q0 + 8 * rowStride;
#pragma unroll
    for (int kc = 0; kc < D / 16; ++kc) {
        qa[kc][0] = has0 ? __ldg(reinterpret_cast<const unsigned int*>(q0 + kc * 16)) : 0u;
        qa[kc][1] = has1 ? __ldg(reinterpret_cast<const unsigned int*>(q1 + kc * 16)) : 0u;
        qa[kc][2] = has0 ? __ldg(reinterpret_cast<const unsigned int*>(q0 + kc * 16 + 8)) : 0u;
        qa[kc][3] = has1 ? __ldg(reinterpret_cast<const unsigned int*>(q1 + kc * 16 + 8)) : 0u;
    }
}

// The online softmax over one chunk of NT * 8 keys from kv0 on: keys past the token masked, softcap, each row's max
// (kept at D = 128 until a chunk passes it by KEPT_MAX_SLACK_LOG2: the rescale of O is skipped when no row of the warp
// moved), s turned into P, the rows' sums into l, then P x V from the chunk's V into o. The chunk's first key is never
// past the token, so the max is finite.
template <typename T, int D, int NT, bool KEEP_MAX, int V_PANEL_ROWS = 0>
__device__ __forceinline__ void nsa_rows_chunk(float (&s)[NT][4], float (&o)[D / 8][4], float (&m)[2], float (&l)[2],
                                               const T* sV, int kv0, int token, int lane, bool capped, float softcap,
                                               float capIn, float sl2, float keptSlack) {
    constexpr int DB = D / 8;
    const int t = lane & 3;
    // D = 64's walk (chunks of 32 or 64 keys) branches on a vote: 1.03-1.06x (H100, 42nd session); the warp order's
    // 16-key chunks lost 1% with it, and D = 128's walk 36 more bytes of spill
    if constexpr (D == 64 && NT * 8 > NSA_WARP_KEYS) {
        if (capped) {
#pragma unroll
            for (int n = 0; n < NT; ++n) {
#pragma unroll
                for (int e = 0; e < 4; ++e) s[n][e] = softcap * tanhf(s[n][e] * capIn);
            }
        }
        // only the chunk holding the token has later keys: a branch on a vote (the token is the warp's), so that the
        // other chunks skip the compares and selects rather than run them under a predicate
        if (__any_sync(0xffffffffu, kv0 + NT * 8 > token + 1)) {
#pragma unroll
            for (int n = 0; n < NT; ++n) {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    if (kv0 + n * 8 + 2 * t + (e & 1) > token) s[n][e] = -INFINITY;
                }
            }
        }
    } else {
        const bool partial = kv0 + NT * 8 > token + 1;
#pragma unroll
        for (int n = 0; n < NT; ++n) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float z = s[n][e];
                if (capped) z = softcap * tanhf(z * capIn);
                if (partial && kv0 + n * 8 + 2 * t + (e & 1) > token) z = -INFINITY;
                s[n][e] = z;
            }
        }
    }
    float alpha[2];
    auto rescaleRow = [&](int r) {
#pragma unroll
        for (int d = 0; d < DB; ++d) {
            o[d][2 * r] *= alpha[r];
            o[d][2 * r + 1] *= alpha[r];
        }
    };
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        float rowMax = fmaxf(s[0][2 * r], s[0][2 * r + 1]);
#pragma unroll
        for (int n = 1; n < NT; ++n) rowMax = fmaxf(rowMax, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
        const float chunkMax = quad_max(rowMax);
        float base;
        if constexpr (KEEP_MAX) {
            const bool grow = chunkMax > m[r] + keptSlack;  // always on the first chunk (m is -inf)
            base = (grow ? chunkMax : m[r]) * sl2;
            alpha[r] = grow ? exp2_approx(fmaf(m[r], sl2, -base)) : 1.f;
            m[r] = grow ? chunkMax : m[r];
        } else {
            const float mx = fmaxf(m[r], chunkMax);
            base = mx * sl2;
            alpha[r] = exp2_approx(fmaf(m[r], sl2, -base));
            m[r] = mx;
        }
        float sum = 0.f;
#pragma unroll
        for (int n = 0; n < NT; ++n) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const float p = exp2_approx(fmaf(s[n][2 * r + e], sl2, -base));
                s[n][2 * r + e] = p;
                sum += p;
            }
        }
        l[r] = l[r] * alpha[r] + sum;
        if constexpr (!KEEP_MAX) rescaleRow(r);  // the exact path keeps its per-row multiply, as measured
    }
    if constexpr (KEEP_MAX) {
        if (__any_sync(0xffffffffu, alpha[0] != 1.f || alpha[1] != 1.f)) {  // some row of the warp moved its max
            rescaleRow(0);
            rescaleRow(1);
        }
    }
    warp_sb_add<T, D, NT * 8, NT, D, V_PANEL_ROWS>(o, s, sV, lane);
}

// Each real row of the warp straight from registers to its (head, token) place; head0 = b * H + the warp's first head.
template <typename T, int D>
__device__ __forceinline__ void nsa_rows_store(const float (&o)[D / 8][4], const float (&m)[2], const float (&l)[2],
                                               T* O, float* LSE, size_t head0, int Tn, int token, int heads, int lane,
                                               float sl2) {
    const int g = lane >> 2;
    const int t = lane & 3;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float sum = quad_sum(l[r]);  // every lane shuffles, then only real heads store
        if (g + 8 * r >= heads) continue;
        const float inv = sum > 0.f ? 1.f / sum : 0.f;
        const size_t row = (head0 + g + 8 * r) * Tn + token;
        T* out = O + row * D + 2 * t;
#pragma unroll
        for (int d = 0; d < D / 8; ++d) {
            *reinterpret_cast<uint32_t*>(out + d * 8) = Elem<T>::pack(o[d][2 * r] * inv, o[d][2 * r + 1] * inv);
        }
        if (t == 0) LSE[row] = sum > 0.f ? (m[r] * sl2 + __log2f(sum)) * LN2 : -INFINITY;
    }
}

template <typename T, int D, int BKV>
__device__ __forceinline__ void nsa_fwd_warp(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V,
                                             T* __restrict__ O, float* __restrict__ LSE, const int* __restrict__ indices,
                                             const int* __restrict__ counts, int Bn, int H, int Hkv, int Tn, int S,
                                             float scale, float softcap) {
    constexpr int DB = D / 8;
    constexpr int KC = D / 16;
    constexpr int CHUNKS = D / 8;                       // 16-byte pieces per row
    constexpr int STAGE = 2 * NSA_WARP_KEYS * D;        // elements of one ring slice: K then V
    constexpr int COPIES = NSA_WARP_KEYS * CHUNKS / 32; // 16-byte copies per lane per operand

    extern __shared__ __align__(128) unsigned char smem[];
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2;
    const int t = lane & 3;
    T* ring = reinterpret_cast<T*>(smem) + warp * NSA_WARP_STAGES * STAGE;

    const int G = H / Hkv;
    const int groups = (G + 15) / 16;
    const long long item = (long long)blockIdx.x * NSA_WARP_WARPS + warp;
    const long long perPlane = (long long)Tn * groups;
    if (item >= (long long)Bn * Hkv * perPlane) return;  // the last CTA's spare warps (no CTA barrier follows)
    const int plane = (int)(item / perPlane);
    const int b = plane / Hkv;
    const int hkv = plane % Hkv;
    const int rem = (int)(item % perPlane);
    const int token = Tn - 1 - rem / groups;
    const int h0 = (rem % groups) * 16;
    const int heads = min(16, G - h0);  // rows of this warp that are real heads
    const long long sel = ((long long)b * Tn + token) * Hkv + hkv;

    const T* Kh = K + (size_t)plane * Tn * D;
    const T* Vh = V + (size_t)plane * Tn * D;

    const bool capped = softcap > 0.f;
    const float sl2 = capped ? LOG2E : scale * LOG2E;
    const float capIn = capped ? scale / softcap : 0.f;
    // At D = 128 a row keeps its max until a chunk passes it by KEPT_MAX_SLACK_LOG2, and the warp skips O's rescale
    // (64 registers a lane, after every 16 keys) when none of its rows moved: 1.05-1.07x (docs/kernel-notes.md, "A
    // kept row max"). At D = 64 the same lost 5%, as in the dense forward, so D = 64 keeps the exact running max.
    constexpr bool KEEP_MAX = D >= 128;
    const float keptSlack = KEEP_MAX ? KEPT_MAX_SLACK_LOG2 / sl2 : 0.f;  // in raw score units

    // Q of rows g and g + 8 (heads h0 + g, h0 + g + 8)
    uint32_t qa[KC][4];
    nsa_rows_q<T, D>(qa, Q + (((size_t)b * H + hkv * G + h0 + g) * Tn + token) * D + 2 * t, (size_t)Tn * D, g < heads,
                     g + 8 < heads);

    // one chunk: 16 keys of K and V from key kv0 on into ring slice `stage` (keys past Tn zero-filled)
    auto load = [&](int kv0, int stage) {
        T* sK = ring + stage * STAGE;
        T* sV = sK + NSA_WARP_KEYS * D;
#pragma unroll
        for (int i = 0; i < COPIES; ++i) {
            const int p = i * 32 + lane;
            const int r = p / CHUNKS;
            const int c = p % CHUNKS;
            const bool valid = kv0 + r < Tn;
            const size_t at = valid ? (size_t)(kv0 + r) * D + c * 8 : 0;
            cp_async16(smem_u32(sK + Swizzled<D>::chunk(r, c)), Kh + at, valid);
            cp_async16(smem_u32(sV + Swizzled<D>::chunk(r, c)), Vh + at, valid);
        }
    };

    NsaChunkCursor<BKV> copier;
    NsaChunkCursor<BKV> cur;
    const int count = min(__ldg(counts + sel), S);
    copier.start(indices + sel * S, count, token);
    cur = copier;
#pragma unroll
    for (int st = 0; st < NSA_WARP_STAGES - 1; ++st) {
        if (copier.kv0 >= 0) {
            load(copier.kv0, st);
            copier.advance();
        }
        cp_async_commit();
    }

    float o[DB][4];
    float m[2] = {-INFINITY, -INFINITY};
    float l[2] = {0.f, 0.f};
#pragma unroll
    for (int d = 0; d < DB; ++d) {
#pragma unroll
        for (int e = 0; e < 4; ++e) o[d][e] = 0.f;
    }

    for (int it = 0; cur.kv0 >= 0; ++it) {
        const int stage = it % NSA_WARP_STAGES;
        cp_async_wait<NSA_WARP_STAGES - 2>();
        __syncwarp();  // the chunk landed for every lane; the slice computed last step is free again
        if (copier.kv0 >= 0) {
            load(copier.kv0, (it + NSA_WARP_STAGES - 1) % NSA_WARP_STAGES);
            copier.advance();
        }
        cp_async_commit();

        const T* sK = ring + stage * STAGE;
        const T* sV = sK + NSA_WARP_KEYS * D;
        float s[2][4];
#pragma unroll
        for (int n = 0; n < 2; ++n) {
#pragma unroll
            for (int e = 0; e < 4; ++e) s[n][e] = 0.f;
        }
#pragma unroll
        for (int kc = 0; kc < KC; ++kc) {
            uint32_t bk[4];
            ldmatrix_x4(bk, addr_b_order<D>(sK, 0, kc * 2, lane));
            Elem<T>::mma(s[0], qa[kc], bk[0], bk[1]);
            Elem<T>::mma(s[1], qa[kc], bk[2], bk[3]);
        }
        nsa_rows_chunk<T, D, 2, KEEP_MAX>(s, o, m, l, sV, cur.kv0, token, lane, capped, softcap, capIn, sl2, keptSlack);
        cur.advance();
    }
    cp_async_wait<0>();

    nsa_rows_store<T, D>(o, m, l, O, LSE, (size_t)b * H + hkv * G + h0, Tn, token, heads, lane, sl2);
}


// ---- Shared walk, the forward for selections whose neighbouring tokens share blocks (NsaGpu.Forward.auto): a tile of
// NSA_SHARED_TOKENS consecutive tokens of one kv head, a consumer warp per token (its 16 heads as the m16n8k16 rows, as
// in nsa_fwd_warp) and one producer warp that streams the sorted union of the tile's chosen blocks, NSA_SHARED_KEYS
// keys at a time (64 with blocks of 64 or more), through a ring of NSA_SHARED_RING_BYTES (12 chunks, 6 of D = 128's
// 64-key ones) with full / empty mbarriers, so a block chosen by several tokens of the tile is loaded once for all of
// them. A consumer touches only the chunks its own token uses (a per-block mask from the host's walk table; it finds
// them 32 entries at a time by a ballot) and the producer arrives on the empty barrier for the tile's other warps as
// it issues a chunk (waiting for and releasing every chunk of the tile, as before, spent a third of the issued
// instructions on chunks a warp skipped and kept the warps in step: docs/kernel-notes.md). Hopper only (mbarriers
// with cp.async arrivals are sm_80+, but the kernel is built and measured in the sm_90a pass only).
//   walkPtr[tiles + 1], walk[]: per tile (plane-major, tiles of consecutive tokens), entries kb << 12 | mask, kb
//   ascending, bit w of mask set when token tile0 + w chose kb and kb * BKV <= that token.
// 11 consumers and the producer are 12 warps, which ptxas gives the same 168 registers a thread as 8 + 1 (it
// allocates for whole warpgroups): 11-token tiles ran 1.2-1.25x faster than 8-token ones (docs/kernel-notes.md).
constexpr int NSA_WALK_MASK_BITS = 12;
constexpr int NSA_SHARED_TOKENS = 11;
constexpr int NSA_SHARED_KEYS = 32;  // keys per chunk: 32, not the warp order's 16, for four score chains a warp
// 64 keys a chunk with blocks of 64 or more: half the chunks, so half the fixed costs a key (the waits, the softmax's
// row reductions, the loop); 1.20-1.45x at D = 64, 1.0-1.10x at D = 128, where a ring of 6 such slots and 44 bytes of
// spill cost part of it (docs/kernel-notes.md); smaller blocks keep 32 (a chunk is one block's)
__host__ __device__ constexpr int nsa_shared_keys(int bkv) {
    return bkv >= 64 ? 64 : NSA_SHARED_KEYS;
}
// the ring's bytes: 12 slots of D = 128's 32-key chunks, 6 of its 64-key ones; 12 or 24 of D = 64's 64- or 32-key ones
constexpr int NSA_SHARED_RING_BYTES = 12 * 2 * NSA_SHARED_KEYS * 128 * 2;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// One lane of the producer moves a chunk's K and V with bulk tensor copies of kMap / vMap (boxes of 64 columns x KEYS
// rows of a plane; rows past the sequence's end read zeros), so a slot holds K, then V, each as D / 64 panels of
// KEYS x 64 elements in the 128-byte swizzle (Swizzled<64> per panel), which the consumers read panel by panel.
template <typename T, int D, int BKV>
__device__ __forceinline__ void nsa_fwd_shared(const T* __restrict__ Q, const TensorMap* kMap, const TensorMap* vMap,
                                               T* __restrict__ O, float* __restrict__ LSE,
                                               const int* __restrict__ walkPtr, const int* __restrict__ walk, int Bn,
                                               int H, int Hkv, int Tn, float scale, float softcap, int tiles) {
    constexpr int WARPS = NSA_SHARED_TOKENS;
    constexpr int DB = D / 8;
    constexpr int KC = D / 16;
    constexpr int KEYS = nsa_shared_keys(BKV);
    constexpr int NT = KEYS / 8;                 // n8 score tiles of a chunk
    constexpr int STAGE = 2 * KEYS * D;          // elements of one ring slot: K then V
    constexpr int R = NSA_SHARED_RING_BYTES / (STAGE * (int)sizeof(T));
    constexpr int TOKENS_MASK = (1 << NSA_WALK_MASK_BITS) - 1;

    extern __shared__ unsigned char smemRaw[];
    __shared__ uint64_t full[R], empty[R];
    // chunks the producer has issued: a consumer may skip more than a ring of chunks, so before its parity wait on a
    // slot it makes sure the slot holds the round it wants or the one before (the parity tells those two apart only)
    __shared__ int issued;
    const uint32_t rawAddr = smem_u32(smemRaw);  // the bulk copies' swizzle needs 1024-byte aligned slots
    T* ring = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;

    const int tilesPerPlane = (Tn + WARPS - 1) / WARPS;
    // work item w (blockIdx.x, then every gridDim.x-th: at most one CTA per SM, so the producer streams the next
    // tile's first chunks while the consumers finish this one) is a tile of one plane, the longest lists first
    auto tileOf = [&](int w) { return (w / tilesPerPlane) * tilesPerPlane + tilesPerPlane - 1 - w % tilesPerPlane; };

    if (threadIdx.x == 0) {
        for (int s = 0; s < R; ++s) {
            mbar_init(&full[s], 1);       // the producer's lane, which expects the bulk copies' bytes
            mbar_init(&empty[s], WARPS);  // the consumers that used the chunk, the producer for the others
        }
        issued = 0;
        mbar_init_fence();
    }
    __syncthreads();

    if (warp == WARPS) {  // the producer
        if (lane == 0) {
            tma_prefetch(kMap);
            tma_prefetch(vMap);
            int pos = 0;
            for (int w = blockIdx.x; w < tiles; w += gridDim.x) {
                const int tile = tileOf(w);
                const int plane = tile / tilesPerPlane;
                const int tile0 = (tile % tilesPerPlane) * WARPS;
                const int last = __ldg(walkPtr + tile + 1);
                int e = __ldg(walkPtr + tile);
                int entry = e < last ? __ldg(walk + e) : 0;
                for (; e < last; ++e) {
                    const int cur = entry;
                    if (e + 1 < last) entry = __ldg(walk + e + 1);  // the next entry's load under this one's copies
                    const int kb = cur >> NSA_WALK_MASK_BITS;
                    const int tmax = tile0 + 31 - __clz(cur & TOKENS_MASK);  // the tile's last token that chose kb
                    const int end = min(kb * BKV + BKV, tmax + 1);
                    for (int kv0 = kb * BKV; kv0 < end; kv0 += KEYS, ++pos) {
                        const int slot = pos % R;
                        if (pos >= R) mbar_wait(&empty[slot], ((pos / R) - 1) & 1);
                        T* sK = ring + slot * STAGE;
                        mbar_arrive_expect_tx(&full[slot], STAGE * sizeof(T));
                        tma_load_tile<KEYS, D>(sK, kMap, kv0, plane, &full[slot]);
                        tma_load_tile<KEYS, D>(sK + KEYS * D, vMap, kv0, plane, &full[slot]);
                        // its users: the tokens that chose kb and reach kv0 (bit w is token tile0 + w; kv0 <= tmax)
                        const int users = __popc((cur & TOKENS_MASK) >> max(0, kv0 - tile0));
                        if (users < WARPS) mbar_arrive_count(&empty[slot], WARPS - users);
                        shared_count_add(&issued, 1);
                    }
                }
            }
        }
        return;
    }

    // a consumer: per tile, token tile0 + warp, heads hkv * G .. + min(G, 16) (G <= 16: the host refuses larger
    // groups); its ring position counts every chunk of every tile, as the producer's does, the ones it skips included
    const int g = lane >> 2;
    const int t = lane & 3;
    const int G = H / Hkv;
    const int heads = min(16, G);
    const bool capped = softcap > 0.f;
    const float sl2 = capped ? LOG2E : scale * LOG2E;
    const float capIn = capped ? scale / softcap : 0.f;
    constexpr bool KEEP_MAX = D >= 128;
    const float keptSlack = KEEP_MAX ? KEPT_MAX_SLACK_LOG2 / sl2 : 0.f;

    int pos = 0;
    for (int w = blockIdx.x; w < tiles; w += gridDim.x) {
        const int tile = tileOf(w);
        const int plane = tile / tilesPerPlane;
        const int tile0 = (tile % tilesPerPlane) * WARPS;
        const int b = plane / Hkv;
        const int hkv = plane % Hkv;
        const int token = tile0 + warp;
        const bool real = token < Tn;
        const int first = __ldg(walkPtr + tile);
        const int last = __ldg(walkPtr + tile + 1);
        int next = first + lane < last ? __ldg(walk + first + lane) : 0;  // the first batch's entries, under Q's loads

        uint32_t qa[KC][4];
        nsa_rows_q<T, D>(qa, Q + (((size_t)b * H + hkv * G + g) * Tn + (real ? token : 0)) * D + 2 * t,
                         (size_t)Tn * D, real && g < heads, real && g + 8 < heads);
        float o[DB][4];
        float m[2] = {-INFINITY, -INFINITY};
        float l[2] = {0.f, 0.f};
#pragma unroll
        for (int d = 0; d < DB; ++d) {
#pragma unroll
            for (int q = 0; q < 4; ++q) o[d][q] = 0.f;
        }

        for (int e0 = first; e0 < last; e0 += 32) {
            // lane i holds entry e0 + i and its chunk count (as many as the producer loads of its block: one when a
            // block is one chunk), `before` the chunks of the entries ahead of it in this batch
            const bool held = e0 + lane < last;
            const int cur = next;
            if (e0 + 32 < last) next = e0 + 32 + lane < last ? __ldg(walk + e0 + 32 + lane) : 0;  // under this batch
            int chunks = 1;
            int before = lane;
            int batch = min(32, last - e0);
            if constexpr (BKV > KEYS) {
                const int kb = cur >> NSA_WALK_MASK_BITS;
                const int tmax = tile0 + 31 - __clz(cur & TOKENS_MASK);
                chunks = held ? (min(kb * BKV + BKV, tmax + 1) - kb * BKV + KEYS - 1) / KEYS : 0;
                before = chunks;
#pragma unroll
                for (int d = 1; d < 32; d <<= 1) {
                    const int ahead = __shfl_up_sync(0xffffffffu, before, d);
                    if (lane >= d) before += ahead;
                }
                batch = __shfl_sync(0xffffffffu, before, 31);
                before -= chunks;
            }
            for (uint32_t mine = __ballot_sync(0xffffffffu, (cur >> warp) & 1); mine != 0; mine &= mine - 1) {
                const int i = __ffs(mine) - 1;
                const int kb = __shfl_sync(0xffffffffu, cur, i) >> NSA_WALK_MASK_BITS;
                const int at0 = pos + (BKV > KEYS ? __shfl_sync(0xffffffffu, before, i) : i);
                const int n = BKV > KEYS ? __shfl_sync(0xffffffffu, chunks, i) : 1;
                for (int c = 0; c < n && kb * BKV + c * KEYS <= token; ++c) {
                    const int kv0 = kb * BKV + c * KEYS;
                    const int at = at0 + c;
                    const int slot = at % R;
                    while (shared_count_read(&issued) <= at) __nanosleep(32);
                    mbar_wait(&full[slot], (at / R) & 1);
                    const T* sK = ring + slot * STAGE;
                    const T* sV = sK + KEYS * D;
                    float s[NT][4];
#pragma unroll
                    for (int n8 = 0; n8 < NT; ++n8) {
#pragma unroll
                        for (int q = 0; q < 4; ++q) s[n8][q] = 0.f;
                    }
#pragma unroll
                    for (int kc = 0; kc < KC; ++kc) {
#pragma unroll
                        for (int n2 = 0; n2 < NT / 2; ++n2) {
                            uint32_t bk[4];
                            // K's panel kc / 4 holds this k16 step's columns
                            ldmatrix_x4(bk, addr_b_order<64>(sK + (kc / 4) * KEYS * 64, n2 * 16, (kc % 4) * 2,
                                                             lane));
                            Elem<T>::mma(s[2 * n2], qa[kc], bk[0], bk[1]);
                            Elem<T>::mma(s[2 * n2 + 1], qa[kc], bk[2], bk[3]);
                        }
                    }
                    nsa_rows_chunk<T, D, NT, KEEP_MAX, KEYS>(s, o, m, l, sV, kv0, token, lane, capped, softcap,
                                                             capIn, sl2, keptSlack);
                    warp_arrive(&empty[slot], lane == 0);
                }
            }
            pos += batch;
        }
        if (real) nsa_rows_store<T, D>(o, m, l, O, LSE, (size_t)b * H + hkv * G, Tn, token, heads, lane, sl2);
    }
}
#endif

}  // namespace saw

#define SAW_NSA_WARP(TN, T, D, BKV)                                                                                   \
    extern "C" __global__ void __launch_bounds__(saw::NSA_WARP_WARPS * 32) nsa_fwd_warp_##TN##_d##D##_b##BKV(        \
        const T* Q, const T* K, const T* V, T* O, float* LSE, const int* indices, const int* counts, int B, int H,     \
        int Hkv, int Tn, int S, float scale, float softcap) {                                                        \
        saw::nsa_fwd_warp<T, D, BKV>(Q, K, V, O, LSE, indices, counts, B, H, Hkv, Tn, S, scale, softcap);             \
    }

#define SAW_NSA_WARP_BLOCKS(TN, T, D) SAW_NSA_BLOCKS(SAW_NSA_WARP, TN, T, D)

SAW_NSA_HEADS(SAW_NSA_WARP_BLOCKS)

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SAW_NSA_SHARED_BODY(T, D, BKV) \
    saw::nsa_fwd_shared<T, D, BKV>(Q, &kMap, &vMap, O, LSE, walkPtr, walk, B, H, Hkv, Tn, scale, softcap, tiles);
#else
#define SAW_NSA_SHARED_BODY(T, D, BKV) __trap();
#endif
// tiles, work: a persistent launch's items and queue (CudaDevice.launchOn); the tiles go round robin, the queue unused
#define SAW_NSA_SHARED(TN, T, D, BKV)                                                                              \
    extern "C" __global__ void __launch_bounds__((saw::NSA_SHARED_TOKENS + 1) * 32, 1)                             \
        nsa_fwd_shared_##TN##_d##D##_b##BKV(const T* Q, const T* K, const T* V, T* O, float* LSE, const int* walkPtr, \
                                            const int* walk, int B, int H, int Hkv, int Tn, float scale,              \
                                            float softcap, const __grid_constant__ saw::TensorMap kMap,               \
                                            const __grid_constant__ saw::TensorMap vMap, int tiles, int* work) {      \
        SAW_NSA_SHARED_BODY(T, D, BKV)                                                                             \
    }
#define SAW_NSA_SHARED_BLOCKS(TN, T, D) SAW_NSA_BLOCKS(SAW_NSA_SHARED, TN, T, D)
SAW_NSA_HEADS(SAW_NSA_SHARED_BLOCKS)

// ---- per-block forward, the default for G <= 8: K and V once per kv-block, a partial O per choice, then a merge ----
//   nsa_fwd_block_*  one CTA per work item (b, hkv, kv-block, a range of the tokens that chose it; host-built by
//                    NsaTables.blockItems, plane-major then token chunk then block, so the Q rows the CTAs running at
//                    one time gather stay in L2). K and V of the block sit in shared memory for the whole item; the
//                    item's rows (entry * G + head, the backward's gather) come 64 at a time, double-buffered. Each
//                    warp's 16 rows get the whole block's scores at once (causal: key <= token; softcap), their own
//                    max and sum, and P V / sum is written once, in T, to the row's slot of the partial buffer
//                    [B, T, Hkv, S, G, D] with (max * log2e-scale, sum) in [B, T, Hkv, S, G] float2: no atomics, each
//                    (token, head, slot) has exactly one writer.
//   nsa_merge_*      one warp per (b, hkv, token, head): the S partials of the row weighed by sum * 2^(max - M) into
//                    O and LSE, reading block_indices / block_counts to know which slots were written.
// Bytes per choice at D = 128, G = 16: Q 4 KB (mostly from L2: the token chunks), partial 4 KB written + 4 KB read,
// against 32 KB of K and V per choice for the warp order.

namespace saw {

constexpr int NSA_BLOCK_WARPS = 4;

template <typename T, int D, int BKV>
__device__ __forceinline__ void nsa_fwd_block(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V,
                                              T* __restrict__ Opart, float2* __restrict__ ML,
                                              const int* __restrict__ items, const int* __restrict__ colTok,
                                              const int* __restrict__ colSlot, int H, int Hkv, int Tn, int nkv, int S,
                                              float scale, float softcap) {
    constexpr int QS = NSA_ROWS;
    constexpr int THREADS = NSA_BLOCK_WARPS * 32;
    constexpr int NB = BKV / 8;
    constexpr int DB = D / 8;
    constexpr int CHUNKS = D / 8;

    extern __shared__ __align__(128) unsigned char smem[];
    T* sK = reinterpret_cast<T*>(smem);
    T* sV = sK + BKV * D;
    T* sQ = sV + BKV * D;                                  // 2 stages of QS x D
    int* sTok = reinterpret_cast<int*>(sQ + 2 * QS * D);   // 2 stages: token of each row, -1 past the item
    int* sOut = sTok + 2 * QS;  // 2 stages: partial row (((b * T + t) * Hkv + hkv) * S + slot) * G + head, -1 past

    const int tid = threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int g = lane >> 2;
    const int t = lane & 3;

    const NsaItem item(items[3 * blockIdx.x], items[3 * blockIdx.x + 1], items[3 * blockIdx.x + 2], H, Hkv, nkv, BKV);
    const int kv0 = item.kv0;
    const int steps = item.steps;

    const bool capped = softcap > 0.f;
    const float sl2 = capped ? LOG2E : scale * LOG2E;
    const float capIn = capped ? scale / softcap : 0.f;

    // the steps' rows in order (NsaGather)
    using Gather = NsaGather<THREADS, D>;
    Gather rows(item, tid, H, Tn);
    auto loadStep = [&](int stage) {
        NsaRowCursor at = rows.next;
#pragma unroll
        for (int k = 0; k < Gather::PER_THREAD; ++k) {
            const int r = tid / CHUNKS + k * Gather::ROW_STEP;
            const bool valid = at.e < item.tokens;
            long long off = 0;
            if (valid) off = rows.headOffset(at) + (long long)colTok[item.begin + at.e] * D;
            cp_async16(smem_u32(sQ + stage * QS * D + Swizzled<D>::chunk(r, tid % CHUNKS)), Q + off, valid);
            at.advance(rows.byRow, item.G);
        }
        rows.next.advance(rows.byStep, item.G);
        if (tid < QS) {
            int token = -1;
            int out = -1;
            if (rows.table.e < item.tokens) {
                const int e = item.begin + rows.table.e;
                token = colTok[e];
                out = item.partialRow(rows.table.h, token, colSlot[e], Tn, Hkv, S);
            }
            sTok[stage * QS + tid] = token;
            sOut[stage * QS + tid] = out;
            rows.table.advance(rows.byStep, item.G);
        }
    };

    const size_t kvHead = (size_t)item.plane * Tn * D;
    load_tile<BKV, D, THREADS>(sK, K + kvHead, kv0, Tn, tid);
    load_tile<BKV, D, THREADS>(sV, V + kvHead, kv0, Tn, tid);
    if (steps > 0) loadStep(0);
    cp_async_commit();

    for (int it = 0; it < steps; ++it) {
        const int stage = it & 1;
        if (it + 1 < steps) loadStep(stage ^ 1);
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();

        T* tQ = sQ + stage * QS * D;
        const int* tTok = sTok + stage * QS;
        const int* tOut = sOut + stage * QS;
        float s[NB][4];
#pragma unroll
        for (int n = 0; n < NB; ++n) {
#pragma unroll
            for (int e = 0; e < 4; ++e) s[n][e] = 0.f;
        }
        if (tTok[warp * 16] >= 0) {  // rows are filled in order: a warp whose first row is past the item has none
#pragma unroll
            for (int kc = 0; kc < D / 16; ++kc) {
                uint32_t a[4];
                ldmatrix_x4(a, addr_a_order<D>(tQ, warp * 16, kc * 2, lane));
#pragma unroll
                for (int n2 = 0; n2 < NB / 2; ++n2) {
                    uint32_t bk[4];
                    ldmatrix_x4(bk, addr_b_order<D>(sK, n2 * 16, kc * 2, lane));
                    Elem<T>::mma(s[2 * n2], a, bk[0], bk[1]);
                    Elem<T>::mma(s[2 * n2 + 1], a, bk[2], bk[3]);
                }
            }
            float mlog[2];
            float sum[2];
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int last = tTok[warp * 16 + g + 8 * r];  // keys past the token are masked (causal); -1: no row
                float mx = -INFINITY;
#pragma unroll
                for (int n = 0; n < NB; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        float z = s[n][2 * r + e];
                        if (capped) z = softcap * tanhf(z * capIn);
                        const int key = kv0 + n * 8 + 2 * t + e;
                        z = key <= last ? z : -INFINITY;
                        s[n][2 * r + e] = z;
                        mx = fmaxf(mx, z);
                    }
                }
                mx = quad_max(mx);
                const float base = mx == -INFINITY ? 0.f : mx * sl2;
                float l = 0.f;
#pragma unroll
                for (int n = 0; n < NB; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const float p = exp2_approx(fmaf(s[n][2 * r + e], sl2, -base));
                        s[n][2 * r + e] = p;
                        l += p;
                    }
                }
                sum[r] = quad_sum(l);
                mlog[r] = mx == -INFINITY ? -INFINITY : base;
            }
            float o[DB][4];
#pragma unroll
            for (int d = 0; d < DB; ++d) {
#pragma unroll
                for (int e = 0; e < 4; ++e) o[d][e] = 0.f;
            }
            warp_sb_add<T, D, BKV, NB>(o, s, sV, lane);
            // stage P V / sum in this warp's own 16 Q rows (no other warp reads them), then 16-byte stores
            __syncwarp();
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int row = warp * 16 + g + 8 * r;
                const float inv = sum[r] > 0.f ? 1.f / sum[r] : 0.f;
#pragma unroll
                for (int d = 0; d < DB; ++d) {
                    *reinterpret_cast<uint32_t*>(tQ + Swizzled<D>::elem(row, d * 8 + 2 * t)) =
                        Elem<T>::pack(o[d][2 * r] * inv, o[d][2 * r + 1] * inv);
                }
                const int out = tOut[row];
                if (t == 0 && out >= 0) ML[out] = make_float2(mlog[r], sum[r]);
            }
            __syncwarp();
#pragma unroll
            for (int i = lane; i < 16 * CHUNKS; i += 32) {
                const int row = warp * 16 + i / CHUNKS;
                const int c = i % CHUNKS;
                const int out = tOut[row];
                if (out >= 0) {
                    *reinterpret_cast<uint4*>(Opart + (size_t)out * D + c * 8) =
                        *reinterpret_cast<const uint4*>(tQ + Swizzled<D>::chunk(row, c));
                }
            }
        }
        __syncthreads();
    }
}

// The per-block forward on Hopper (sm_90a), blocks 64 and 128: nsa_fwd_block's items, partials and merge, one
// warpgroup per item with warpgroup MMA. K and V of the block and the gathered Q rows (two stages) sit in wgmma's
// 128-byte swizzle; per 64-row step S = Q K^T (SS, both K-major) covers the whole block, each row's max and sum come
// from quad shuffles (the rows are complete: no online softmax), and O = P V (P from registers, V read N-major) / sum
// is staged over the step's own Q rows (their Q K^T is done) and written with 16-byte stores, as nsa_fwd_block does.
template <typename T, int D, int BKV>
__device__ __forceinline__ void nsa_fwd_block_wgmma(const T* __restrict__ Q, const T* __restrict__ K,
                                                    const T* __restrict__ V, T* __restrict__ Opart,
                                                    float2* __restrict__ ML, const int* __restrict__ items,
                                                    const int* __restrict__ colTok, const int* __restrict__ colSlot,
                                                    int H, int Hkv, int Tn, int nkv, int S, float scale,
                                                    float softcap) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr int QS = NSA_ROWS;
    constexpr int THREADS = NSA_WG_THREADS;
    constexpr int CHUNKS = D / 8;
    constexpr int SR = BKV / 2;  // score accumulators per thread: 64 rows x BKV keys
    constexpr int OR = D / 2;    // output accumulators per thread: 64 rows x D
    constexpr uint32_t PANEL = QS * 128;      // bytes of one 64-column panel of a Q stage
    constexpr uint32_t KV_PANEL = BKV * 128;  // bytes of one 64-column panel of K or V
    constexpr uint32_t TILE_BYTES = QS * D * 2;
    using Tile = Sw128<QS, D>;

    extern __shared__ unsigned char smemRaw[];
    const uint32_t rawAddr = smem_u32(smemRaw);
    T* sK = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    T* sV = sK + BKV * D;
    T* sQ = sV + BKV * D;                                 // 2 stages of QS x D
    int* sTok = reinterpret_cast<int*>(sQ + 2 * QS * D);  // 2 stages: token of each row, -1 past the item
    int* sOut = sTok + 2 * QS;  // 2 stages: partial row (((b * T + t) * Hkv + hkv) * S + slot) * G + head, -1 past
    const uint32_t aK = smem_u32(sK);
    const uint32_t aV = smem_u32(sV);
    const uint32_t aQ = smem_u32(sQ);

    const int tid = threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int t = lane & 3;
    const int row0 = warp * 16 + (lane >> 2);  // this thread's first row of the step; + 8 the other

    const NsaItem item(items[3 * blockIdx.x], items[3 * blockIdx.x + 1], items[3 * blockIdx.x + 2], H, Hkv, nkv, BKV);
    const int kv0 = item.kv0;
    const int steps = item.steps;
    const bool causal = item.causal(colTok, BKV);

    const bool capped = softcap > 0.f;
    const float sl2 = capped ? LOG2E : scale * LOG2E;
    const float capIn = capped ? scale / softcap : 0.f;

    // the steps' rows in order (NsaGather)
    using Gather = NsaGather<THREADS, D>;
    Gather rows(item, tid, H, Tn);
    // the next step's tokens (and row tid's slot), read before S is issued so that their latency hides behind it;
    // loadStep then only does arithmetic on them
    int nextTok[Gather::PER_THREAD];
    int tableTok = 0;
    int tableSlot = 0;
    auto fetchStep = [&]() {
        NsaRowCursor at = rows.next;
#pragma unroll
        for (int k = 0; k < Gather::PER_THREAD; ++k) {
            nextTok[k] = at.e < item.tokens ? colTok[item.begin + at.e] : 0;
            at.advance(rows.byRow, item.G);
        }
        if (tid < QS && rows.table.e < item.tokens) {
            tableTok = colTok[item.begin + rows.table.e];
            tableSlot = colSlot[item.begin + rows.table.e];
        }
    };
    auto loadStep = [&](int stage) {
        T* q = sQ + stage * QS * D;
        NsaRowCursor at = rows.next;
#pragma unroll
        for (int k = 0; k < Gather::PER_THREAD; ++k) {
            const bool valid = at.e < item.tokens;
            const long long off = valid ? rows.headOffset(at) + (long long)nextTok[k] * D : 0;
            cp_async16(smem_u32(q + Tile::chunk(tid / CHUNKS + k * Gather::ROW_STEP, tid % CHUNKS)), Q + off, valid);
            at.advance(rows.byRow, item.G);
        }
        rows.next.advance(rows.byStep, item.G);
        if (tid < QS) {
            const bool valid = rows.table.e < item.tokens;
            sTok[stage * QS + tid] = valid ? tableTok : -1;
            sOut[stage * QS + tid] = valid ? item.partialRow(rows.table.h, tableTok, tableSlot, Tn, Hkv, S) : -1;
            rows.table.advance(rows.byStep, item.G);
        }
    };

    const size_t kvHead = (size_t)item.plane * Tn * D;
    load_tile_sw128<BKV, D, THREADS>(sK, K + kvHead, kv0, Tn, tid);
    load_tile_sw128<BKV, D, THREADS>(sV, V + kvHead, kv0, Tn, tid);
    if (steps > 0) {
        fetchStep();
        loadStep(0);
    }
    cp_async_commit();

    for (int it = 0; it < steps; ++it) {
        const int stage = it & 1;
        cp_async_wait<0>();
        fence_proxy_async();
        __syncthreads();  // this step's rows are in; step it - 1's stores from its stage are done
        if (it + 1 < steps) fetchStep();

        const uint32_t qStep = aQ + stage * TILE_BYTES;
        T* tQ = sQ + stage * QS * D;
        const int* tTok = sTok + stage * QS;
        const int* tOut = sOut + stage * QS;

        // S = Q K^T over the whole block
        float s[SR];
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t in = (kc & 3) * 32;
            Wgmma<T, BKV>::ss(s, sw128_desc(qStep + (kc >> 2) * PANEL + in, 16, 1024),
                              sw128_desc(aK + (kc >> 2) * KV_PANEL + in, 16, 1024), kc > 0 ? 1 : 0);
        }
        wgmma_commit();
        // the next step's gathers (index loads and address arithmetic) while the tensor cores run S
        if (it + 1 < steps) loadStep(stage ^ 1);
        cp_async_commit();
        wgmma_wait<0>();
        fence_regs(s);

        // each row's softmax over the block (causal: key <= its token; -1: no row), P unnormalised
        float mlog[2];
        float sum[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int token = tTok[row0 + 8 * r];
            float mxs[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};  // four chains, not one of BKV / 4
#pragma unroll
            for (int n = 0; n < BKV / 8; ++n) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    float z = s[4 * n + 2 * r + e];
                    if (capped) z = softcap * tanhf(z * capIn);
                    const int key = kv0 + n * 8 + 2 * t + e;
                    z = token >= 0 && (!causal || key <= token) ? z : -INFINITY;
                    s[4 * n + 2 * r + e] = z;
                    mxs[(2 * n + e) & 3] = fmaxf(mxs[(2 * n + e) & 3], z);
                }
            }
            const float mx = quad_max(fmaxf(fmaxf(mxs[0], mxs[1]), fmaxf(mxs[2], mxs[3])));
            const float base = mx == -INFINITY ? 0.f : mx * sl2;
            float ls[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
            for (int n = 0; n < BKV / 8; ++n) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const float p = exp2_approx(fmaf(s[4 * n + 2 * r + e], sl2, -base));
                    s[4 * n + 2 * r + e] = p;
                    ls[(2 * n + e) & 3] += p;
                }
            }
            sum[r] = quad_sum((ls[0] + ls[1]) + (ls[2] + ls[3]));
            mlog[r] = mx == -INFINITY ? -INFINITY : base;
        }

        // O = P V: P is the A fragment (registers), V read N-major
        uint32_t p[BKV / 16][4];
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
#pragma unroll
            for (int x = 0; x < 4; ++x) p[kc][x] = Elem<T>::pack(s[8 * kc + 2 * x], s[8 * kc + 2 * x + 1]);
        }
        float o[OR];
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            Wgmma<T, D>::rs_nmajor(o, p[kc], sw128_desc(aV + kc * 16 * 128, KV_PANEL, 1024), kc > 0 ? 1 : 0);
        }
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(o);
        fence_frags(p);

        // O / sum staged over the step's Q rows once every warp's Q K^T has read them, then each warp's 16 rows out
        __syncthreads();
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int row = row0 + 8 * r;
            const float inv = sum[r] > 0.f ? 1.f / sum[r] : 0.f;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) {
                *reinterpret_cast<uint32_t*>(tQ + Tile::elem(row, n * 8 + 2 * t)) =
                    Elem<T>::pack(o[4 * n + 2 * r] * inv, o[4 * n + 2 * r + 1] * inv);
            }
            const int out = tOut[row];
            if (t == 0 && out >= 0) ML[out] = make_float2(mlog[r], sum[r]);
        }
        __syncwarp();
#pragma unroll
        for (int i = lane; i < 16 * CHUNKS; i += 32) {
            const int row = warp * 16 + i / CHUNKS;
            const int c = i % CHUNKS;
            const int out = tOut[row];
            if (out >= 0) {
                *reinterpret_cast<uint4*>(Opart + (size_t)out * D + c * 8) =
                    *reinterpret_cast<const uint4*>(tQ + Tile::chunk(row, c));
            }
        }
    }
#else
    __trap();  // wgmma needs sm_90a; the host never launches this elsewhere
#endif
}

// One warp per (b, hkv, token, head): O = sum_s w_s O_s / W with w_s = l_s 2^(m_s - M), W = sum_s w_s, M = max_s m_s,
// LSE = (M + log2 W) ln 2; slots with l_s = 0 (nothing at or before the token) count for nothing. The partial rows' loads
// depend only on the count: they are issued, up to 16 slots at a time, before the chain list -> (max, sum) -> weights
// resolves, so a warp waits for about two memory latencies instead of one per dependent step and per few slots.
template <typename T, int D>
__device__ __forceinline__ void nsa_merge(const T* __restrict__ Opart, const float2* __restrict__ ML,
                                          const int* __restrict__ indices, const int* __restrict__ counts,
                                          T* __restrict__ O, float* __restrict__ LSE, int Bn, int H, int Hkv, int Tn,
                                          int S) {
    constexpr int PER = D / 32;     // elements per lane: 4 at D = 128, 2 at D = 64
    constexpr int WORDS = PER / 2;  // 32-bit words per lane and slot
    constexpr int SB = 16;          // slots loaded at once
    const int lane = threadIdx.x & 31;
    const long long item = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int G = H / Hkv;
    if (item >= (long long)Bn * H * Tn) return;
    // item order: b, hkv, token, head, so a warp's neighbours read the same (token, hkv)'s partials
    const int head = (int)(item % G);
    const int token = (int)(item / G % Tn);
    const int plane = (int)(item / ((long long)G * Tn));  // b * Hkv + hkv
    const int b = plane / Hkv;
    const int hkv = plane % Hkv;
    const long long sel = ((long long)b * Tn + token) * Hkv + hkv;
    const int count = min(__ldg(counts + sel), S);
    const int* list = indices + sel * S;
    const uint32_t* rows = reinterpret_cast<const uint32_t*>(Opart + (sel * S * G + head) * D) + lane * WORDS;
    const long long slotWords = (long long)G * D / 2;

    // slot s0 + j's row chunk of this lane, for j < SB and s0 + j < count (an unwritten slot is read and then dropped
    // by the weight's select, never multiplied: its memory may hold NaN)
    uint32_t raw[SB][WORDS];
    auto loadSlots = [&](int s0) {
#pragma unroll
        for (int j = 0; j < SB; ++j) {
#pragma unroll
            for (int w = 0; w < WORDS; ++w) raw[j][w] = 0u;
            if (s0 + j < count) {
                const uint32_t* src = rows + (s0 + j) * slotWords;
                if constexpr (WORDS == 2) {
                    const uint2 u = *reinterpret_cast<const uint2*>(src);
                    raw[j][0] = u.x;
                    raw[j][1] = u.y;
                } else {
                    raw[j][0] = *src;
                }
            }
        }
    };
    loadSlots(0);

    // lane j holds slot s0 + j's (max, sum): one load per 32 slots instead of a dependent chain per slot
    auto slotMs = [&](int s) -> float2 {
        float2 ml = make_float2(-INFINITY, 0.f);
        if (s < count && __ldg(list + s) >= 0) ml = ML[(sel * S + s) * G + head];
        if (!(ml.y > 0.f)) ml = make_float2(-INFINITY, 0.f);  // a slot whose keys were all past the token
        return ml;
    };
    float M = -INFINITY;
    for (int c0 = 0; c0 < count; c0 += 32) M = fmaxf(M, slotMs(c0 + lane).x);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, off));
    float acc[PER];
#pragma unroll
    for (int e = 0; e < PER; ++e) acc[e] = 0.f;
    float W = 0.f;
    if (M != -INFINITY) {
        for (int c0 = 0; c0 < count; c0 += 32) {
            const float2 ml = slotMs(c0 + lane);
            const float wl = ml.y > 0.f ? ml.y * exp2_approx(ml.x - M) : 0.f;
            W += wl;
            for (int h = 0; h < 32 && c0 + h < count; h += SB) {
                const int s0 = c0 + h;
                if (s0 > 0) loadSlots(s0);
#pragma unroll
                for (int j = 0; j < SB; ++j) {
                    const float w = __shfl_sync(0xffffffffu, wl, h + j);
                    const bool use = w > 0.f && s0 + j < count;
#pragma unroll
                    for (int k = 0; k < WORDS; ++k) {
                        const float2 v = Elem<T>::unpack(raw[j][k]);
                        acc[2 * k] = use ? fmaf(w, v.x, acc[2 * k]) : acc[2 * k];
                        acc[2 * k + 1] = use ? fmaf(w, v.y, acc[2 * k + 1]) : acc[2 * k + 1];
                    }
                }
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) W += __shfl_xor_sync(0xffffffffu, W, off);
    }
    const float inv = W > 0.f ? 1.f / W : 0.f;
    const size_t row = ((size_t)b * H + hkv * G + head) * Tn + token;
    T* dst = O + row * D + lane * PER;
    if constexpr (PER == 4) {
        uint2 v;
        v.x = Elem<T>::pack(acc[0] * inv, acc[1] * inv);
        v.y = Elem<T>::pack(acc[2] * inv, acc[3] * inv);
        *reinterpret_cast<uint2*>(dst) = v;
    } else {
        *reinterpret_cast<uint32_t*>(dst) = Elem<T>::pack(acc[0] * inv, acc[1] * inv);
    }
    if (lane == 0) LSE[row] = W > 0.f ? (M + __log2f(W)) * LN2 : -INFINITY;
}

}  // namespace saw

#define SAW_NSA_BLOCK_FWD(TN, T, D, BKV)                                                                              \
    extern "C" __global__ void __launch_bounds__(saw::NSA_BLOCK_WARPS * 32) nsa_fwd_block_##TN##_d##D##_b##BKV(      \
        const T* Q, const T* K, const T* V, T* Opart, float2* ML, const int* items, const int* colTok,                 \
        const int* colSlot, int H, int Hkv, int Tn, int nkv, int S, float scale, float softcap) {                    \
        saw::nsa_fwd_block<T, D, BKV>(Q, K, V, Opart, ML, items, colTok, colSlot, H, Hkv, Tn, nkv, S, scale, softcap); \
    }

#define SAW_NSA_MERGE(TN, T, D)                                                                                      \
    extern "C" __global__ void nsa_merge_##TN##_d##D(const T* Opart, const float2* ML, const int* indices,            \
                                                     const int* counts, T* O, float* LSE, int B, int H, int Hkv,     \
                                                     int Tn, int S) {                                                \
        saw::nsa_merge<T, D>(Opart, ML, indices, counts, O, LSE, B, H, Hkv, Tn, S);                                  \
    }

#define SAW_NSA_BLOCK_FWD_WGMMA(TN, T, D, BKV)                                                                     \
    extern "C" __global__ void __launch_bounds__(saw::NSA_WG_THREADS, BKV == 64 ? 3 : 2)                            \
        nsa_fwd_block_wgmma_##TN##_d##D##_b##BKV(const T* Q, const T* K, const T* V, T* Opart, float2* ML,          \
                                                 const int* items, const int* colTok, const int* colSlot, int H,    \
                                                 int Hkv, int Tn, int nkv, int S, float scale, float softcap) {     \
        saw::nsa_fwd_block_wgmma<T, D, BKV>(Q, K, V, Opart, ML, items, colTok, colSlot, H, Hkv, Tn, nkv, S, scale,    \
                                            softcap);                                                              \
    }

#define SAW_NSA_BLOCK_FWDS(TN, T, D)                                                                 \
    SAW_NSA_BLOCKS(SAW_NSA_BLOCK_FWD, TN, T, D) SAW_NSA_MERGE(TN, T, D)                              \
    SAW_NSA_BLOCK_FWD_WGMMA(TN, T, D, 64) SAW_NSA_BLOCK_FWD_WGMMA(TN, T, D, 128)

SAW_NSA_HEADS(SAW_NSA_BLOCK_FWDS)
