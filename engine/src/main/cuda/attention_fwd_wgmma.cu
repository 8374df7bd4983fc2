// Block-sparse attention forward for Hopper (sm_90a): the same layout tables, outputs and launch order as
// attention_fwd.cu (see its header), with warpgroup MMA (wgmma) instead of mma.sync. One CTA per (q-tile, head,
// batch), 128 q rows: two warpgroups of 64 rows each. K/V tiles of 128 rows are double-buffered with cp.async
// into wgmma's 128-byte-swizzled layout. S = Q K^T reads Q and K from shared memory; P stays in registers and is
// the A operand of O += P V, with V read N-major from shared memory (no transpose pass).
//
// Built only in the sm_90a pass (__CUDA_ARCH_FEAT_SM90_ALL); the sm_80 image holds entry points that trap, and
// the host launches these only on compute capability 9.0.

#include "wgmma.cuh"

namespace saw {

constexpr int WG_THREADS = 256;

template <typename T, int D>
__device__ __forceinline__ void attention_fwd_wgmma(
    const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V, T* __restrict__ O,
    float* __restrict__ LSE, const int* __restrict__ order, const int* __restrict__ variantOf,
    const int* __restrict__ rowPtr, const int* __restrict__ rowPartial, const int* __restrict__ kvIdx,
    const int* __restrict__ maskIdx, const uint32_t* __restrict__ bits, int H, int Hkv, int Sq, int Skv, int nq,
    float scale, float softcap) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr int BQ = 128;
    constexpr int BKV = 128;
    constexpr int SR = BKV / 2;  // score accumulators per thread (64 x BKV per warpgroup)
    constexpr int OR = D / 2;    // output accumulators per thread
    constexpr int WORDS = BKV / 32;
    using QTile = Sw128<BQ, D>;
    using KVTile = Sw128<BKV, D>;

    extern __shared__ unsigned char smemRaw[];
    // 128-byte swizzle is computed from address bits: every panel must start on a 1024-byte boundary
    const uint32_t rawAddr = smem_u32(smemRaw);
    T* sQ = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    T* sK = sQ + BQ * D;
    T* sV = sK + 2 * BKV * D;

    const int tid = threadIdx.x;
    const int wg = tid >> 7;
    const int warp = (tid >> 5) & 3;
    const int lane = tid & 31;
    const int g = lane >> 2;
    const int t = lane & 3;

    const int item = order[blockIdx.x];
    const int qb = item % nq;
    const int bh = item / nq;
    const int h = bh % H;
    const int b = bh / H;
    const int hkv = h / (H / Hkv);
    const int row = variantOf[bh] * nq + qb;
    const int begin = rowPtr[row];
    const int count = rowPtr[row + 1] - begin;
    const int partials = rowPartial[row];
    const int q0 = qb * BQ;

    const T* Qh = Q + (size_t)bh * Sq * D;
    const T* Kh = K + (size_t)(b * Hkv + hkv) * Skv * D;
    const T* Vh = V + (size_t)(b * Hkv + hkv) * Skv * D;

    const bool capped = softcap > 0.f;
    const float sl2 = capped ? LOG2E : scale * LOG2E;
    const float capIn = capped ? scale / softcap : 0.f;

    float o[OR];
    float m[2] = {-INFINITY, -INFINITY};
    float l[2] = {0.f, 0.f};
#pragma unroll
    for (int i = 0; i < OR; ++i) o[i] = 0.f;

    const uint32_t qAddr = smem_u32(sQ) + wg * 64 * 128;  // this warpgroup's 64 rows of every panel
    const uint32_t kAddr = smem_u32(sK);
    const uint32_t vAddr = smem_u32(sV);
    constexpr uint32_t KV_BYTES = BKV * D * 2;

    if (count > 0) {
        load_tile_sw128<BQ, D, WG_THREADS>(sQ, Qh, q0, Sq, tid);
        int kv0 = kvIdx[begin] * BKV;
        load_tile_sw128<BKV, D, WG_THREADS>(sK, Kh, kv0, Skv, tid);
        load_tile_sw128<BKV, D, WG_THREADS>(sV, Vh, kv0, Skv, tid);
        cp_async_commit();
    }

    for (int it = 0; it < count; ++it) {
        const int stage = it & 1;
        if (it + 1 < count) {
            int kvn = kvIdx[begin + it + 1] * BKV;
            load_tile_sw128<BKV, D, WG_THREADS>(sK + (stage ^ 1) * BKV * D, Kh, kvn, Skv, tid);
            load_tile_sw128<BKV, D, WG_THREADS>(sV + (stage ^ 1) * BKV * D, Vh, kvn, Skv, tid);
        }
        cp_async_commit();
        cp_async_wait<1>();
        fence_proxy_async();
        __syncthreads();

        // S = Q K^T: D/16 steps of k16; inside a 64-column panel a step moves 32 bytes, a new panel BQ/BKV rows
        float s[SR];
        const uint32_t kStage = kAddr + stage * KV_BYTES;
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t inPanel = (kc & 3) * 32;
            const uint64_t da = sw128_desc(qAddr + (kc >> 2) * (BQ * 128) + inPanel, 16, 1024);
            const uint64_t db = sw128_desc(kStage + (kc >> 2) * (BKV * 128) + inPanel, 16, 1024);
            Wgmma<T, BKV>::ss(s, da, db, kc > 0 ? 1 : 0);
        }
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(s);

        const bool partial = it < partials;
        if (capped) {
#pragma unroll
            for (int i = 0; i < SR; ++i) s[i] = softcap * tanhf(s[i] * capIn);
        }
        if (partial) {
            const uint32_t* tileBits = bits + (size_t)maskIdx[begin + it] * BQ * WORDS;
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const uint32_t* rowBits = tileBits + (wg * 64 + warp * 16 + g + 8 * r) * WORDS;
                uint32_t w[WORDS];
#pragma unroll
                for (int x = 0; x < WORDS; ++x) w[x] = __ldg(rowBits + x);
#pragma unroll
                for (int n = 0; n < BKV / 8; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int j = n * 8 + 2 * t + e;
                        if (!((w[j >> 5] >> (j & 31)) & 1u)) s[4 * n + 2 * r + e] = -INFINITY;
                    }
                }
            }
        }
        // online softmax, rows g (r = 0) and g + 8 (r = 1) of this warp's 16
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float mx = m[r];
#pragma unroll
            for (int n = 0; n < BKV / 8; ++n) mx = fmaxf(mx, fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]));
            mx = quad_max(mx);
            const float base = mx == -INFINITY ? 0.f : mx * sl2;
            const float alpha = exp2_approx(m[r] * sl2 - base);
            m[r] = mx;
            float sum = 0.f;
#pragma unroll
            for (int n = 0; n < BKV / 8; ++n) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const float p = exp2_approx(fmaf(s[4 * n + 2 * r + e], sl2, -base));
                    s[4 * n + 2 * r + e] = p;
                    sum += p;
                }
            }
            l[r] = l[r] * alpha + sum;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) {
                o[4 * n + 2 * r] *= alpha;
                o[4 * n + 2 * r + 1] *= alpha;
            }
        }

        // O += P V: P's accumulator layout is the A fragment of k16 steps (n8 blocks 2kc, 2kc + 1)
        uint32_t p[BKV / 16][4];
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            p[kc][0] = Elem<T>::pack(s[8 * kc + 0], s[8 * kc + 1]);
            p[kc][1] = Elem<T>::pack(s[8 * kc + 2], s[8 * kc + 3]);
            p[kc][2] = Elem<T>::pack(s[8 * kc + 4], s[8 * kc + 5]);
            p[kc][3] = Elem<T>::pack(s[8 * kc + 6], s[8 * kc + 7]);
        }
        const uint32_t vStage = vAddr + stage * KV_BYTES;
        fence_regs(o);
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            // V N-major: 16 kv rows of 128 bytes per step; panels of 64 d-columns are BKV * 128 bytes apart
            const uint64_t dv = sw128_desc(vStage + kc * 16 * 128, BKV * 128, 1024);
            Wgmma<T, D>::rs_nmajor(o, p[kc], dv, 1);
        }
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(o);
        __syncthreads();
    }

    // epilogue: normalise, stage O through sQ for 16-byte stores, write LSE
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float sum = quad_sum(l[r]);
        const float inv = sum > 0.f ? 1.f / sum : 0.f;
        const int rowInTile = wg * 64 + warp * 16 + g + 8 * r;
#pragma unroll
        for (int n = 0; n < D / 8; ++n) {
            const uint32_t v = Elem<T>::pack(o[4 * n + 2 * r] * inv, o[4 * n + 2 * r + 1] * inv);
            *reinterpret_cast<uint32_t*>(sQ + QTile::elem(rowInTile, n * 8 + 2 * t)) = v;
        }
        const int q = q0 + rowInTile;
        if (t == 0 && q < Sq) {
            LSE[(size_t)bh * Sq + q] = sum > 0.f ? (m[r] * sl2 + __log2f(sum)) * LN2 : -INFINITY;
        }
    }
    __syncthreads();
    T* Oh = O + (size_t)bh * Sq * D;
    constexpr int CHUNKS = D / 8;
    for (int i = tid; i < BQ * CHUNKS; i += WG_THREADS) {
        const int r = i / CHUNKS;
        const int c = i % CHUNKS;
        if (q0 + r < Sq) {
            *reinterpret_cast<uint4*>(Oh + (size_t)(q0 + r) * D + c * 8) =
                *reinterpret_cast<const uint4*>(sQ + QTile::chunk(r, c));
        }
    }
#else
    __trap();  // wgmma needs sm_90a; the host never launches this elsewhere
#endif
}

}  // namespace saw

#define SAW_FWD_WGMMA(NAME, T, D)                                                                              \
    extern "C" __global__ void __launch_bounds__(saw::WG_THREADS, 1) NAME(                                    \
        const T* Q, const T* K, const T* V, T* O, float* LSE, const int* order, const int* variantOf,        \
        const int* rowPtr, const int* rowPartial, const int* kvIdx, const int* maskIdx, const uint32_t* bits,  \
        int H, int Hkv, int Sq, int Skv, int nq, float scale, float softcap) {                               \
        saw::attention_fwd_wgmma<T, D>(Q, K, V, O, LSE, order, variantOf, rowPtr, rowPartial, kvIdx, maskIdx, \
                                       bits, H, Hkv, Sq, Skv, nq, scale, softcap);                            \
    }

SAW_FWD_WGMMA(fwd_wgmma_bf16_d64_q128_kv128, __nv_bfloat16, 64)
SAW_FWD_WGMMA(fwd_wgmma_bf16_d128_q128_kv128, __nv_bfloat16, 128)
SAW_FWD_WGMMA(fwd_wgmma_fp16_d64_q128_kv128, __half, 64)
SAW_FWD_WGMMA(fwd_wgmma_fp16_d128_q128_kv128, __half, 128)
