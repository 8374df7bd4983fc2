// Block-sparse attention forward, FlashAttention-2 shape: one CTA per (q-tile, head, batch), online softmax in
// fp32, mma.sync tensor cores, K/V tiles double-buffered with cp.async. A CTA visits only its row's PARTIAL
// kv-tiles (token mask from a deduplicated bit table) and then its FULL kv-tiles (no mask arithmetic).
//
// Layout tables (built on the host, see saw.engine.attention.TileLists):
//   order[n]            work items, heaviest rows first: item = (b * H + h) * nq + qBlock
//   variantOf[B*H]      mask variant of each (b, h)
//   rowPtr[V*nq + 1]    tile list of row (variant, qBlock) is [rowPtr[r], rowPtr[r + 1]) of kvIdx / maskIdx
//   rowPartial[V*nq]    how many of those (the first ones) are PARTIAL
//   kvIdx[], maskIdx[]  kv-block of each listed tile; for PARTIAL tiles the index of its bit tile
//   bits[]              bit tile m: BQ rows of BKV/32 words; bit (j % 32) of word j / 32 says row i attends column j

#include "tile.cuh"

// The forward kernels' arguments (the layout tables above, in the order the host passes them), as the device
// functions behind the entry points of every forward family take them
#define SAW_FWD_PARAMS(T)                                                                                           \
    const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V, T* __restrict__ O,                   \
    float* __restrict__ LSE, const int* __restrict__ order, const int* __restrict__ variantOf,                      \
    const int* __restrict__ rowPtr, const int* __restrict__ rowPartial, const int* __restrict__ kvIdx,              \
    const int* __restrict__ maskIdx, const uint32_t* __restrict__ bits, int H, int Hkv, int Sq, int Skv, int nq,    \
    float scale, float softcap

namespace saw {

template <typename T, int D, int BQ, int BKV, int WARPS>
__device__ __forceinline__ void attention_fwd(SAW_FWD_PARAMS(T)) {
    constexpr int THREADS = WARPS * 32;
    constexpr int MB = BQ / (16 * WARPS);  // m16 blocks per warp
    constexpr int NB = BKV / 8;            // n8 blocks of a score row
    constexpr int DB = D / 8;              // n8 blocks of an output row
    constexpr int WORDS = BKV / 32;
    static_assert(MB >= 1 && BQ == MB * 16 * WARPS, "q tile must split into m16 blocks per warp");

    extern __shared__ __align__(128) unsigned char smem[];
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = sQ + BQ * D;
    T* sV = sK + 2 * BKV * D;

    const int tid = threadIdx.x;
    const int warp = tid >> 5;
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
    // exp2 argument per unit of the value held in the score registers (raw scores, or capped logits)
    const float sl2 = capped ? LOG2E : scale * LOG2E;
    const float capIn = capped ? scale / softcap : 0.f;

    float o[MB][DB][4];
    float m[MB][2];
    float l[MB][2];
#pragma unroll
    for (int mb = 0; mb < MB; ++mb) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            m[mb][r] = -INFINITY;
            l[mb][r] = 0.f;
        }
#pragma unroll
        for (int d = 0; d < DB; ++d) {
#pragma unroll
            for (int e = 0; e < 4; ++e) o[mb][d][e] = 0.f;
        }
    }

    if (count > 0) {
        load_tile<BQ, D, THREADS>(sQ, Qh, q0, Sq, tid);
        int kv0 = kvIdx[begin] * BKV;
        load_tile<BKV, D, THREADS>(sK, Kh, kv0, Skv, tid);
        load_tile<BKV, D, THREADS>(sV, Vh, kv0, Skv, tid);
        cp_async_commit();
    }

    for (int it = 0; it < count; ++it) {
        const int stage = it & 1;
        if (it + 1 < count) {
            int kvn = kvIdx[begin + it + 1] * BKV;
            load_tile<BKV, D, THREADS>(sK + (stage ^ 1) * BKV * D, Kh, kvn, Skv, tid);
            load_tile<BKV, D, THREADS>(sV + (stage ^ 1) * BKV * D, Vh, kvn, Skv, tid);
        }
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();

        const T* tK = sK + stage * BKV * D;
        const T* tV = sV + stage * BKV * D;
        const bool partial = it < partials;
        const uint32_t* tileBits = partial ? bits + (size_t)maskIdx[begin + it] * BQ * WORDS : nullptr;

        // S = Q K^T; each K fragment feeds every m16 block of the warp (ldmatrix is volatile: no CSE across blocks)
        float s[MB][NB][4];
#pragma unroll
        for (int mb = 0; mb < MB; ++mb) {
#pragma unroll
            for (int n = 0; n < NB; ++n) {
#pragma unroll
                for (int e = 0; e < 4; ++e) s[mb][n][e] = 0.f;
            }
        }
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            uint32_t a[MB][4];
#pragma unroll
            for (int mb = 0; mb < MB; ++mb) ldmatrix_x4(a[mb], addr_a_order<D>(sQ, (warp * MB + mb) * 16, kc * 2, lane));
#pragma unroll
            for (int n2 = 0; n2 < NB / 2; ++n2) {
                uint32_t bk[4];
                ldmatrix_x4(bk, addr_b_order<D>(tK, n2 * 16, kc * 2, lane));
#pragma unroll
                for (int mb = 0; mb < MB; ++mb) {
                    Elem<T>::mma(s[mb][2 * n2], a[mb], bk[0], bk[1]);
                    Elem<T>::mma(s[mb][2 * n2 + 1], a[mb], bk[2], bk[3]);
                }
            }
        }
#pragma unroll
        for (int mb = 0; mb < MB; ++mb) {
            const int r0 = (warp * MB + mb) * 16;
            if (capped) {
#pragma unroll
                for (int n = 0; n < NB; ++n) {
#pragma unroll
                    for (int e = 0; e < 4; ++e) s[mb][n][e] = softcap * tanhf(s[mb][n][e] * capIn);
                }
            }
            if (partial) {
#pragma unroll
                for (int r = 0; r < 2; ++r) {
                    const uint32_t* rowBits = tileBits + (r0 + g + 8 * r) * WORDS;
                    uint32_t w[WORDS];
#pragma unroll
                    for (int x = 0; x < WORDS; ++x) w[x] = __ldg(rowBits + x);
#pragma unroll
                    for (int n = 0; n < NB; ++n) {
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            int j = n * 8 + 2 * t + e;
                            if (!((w[j >> 5] >> (j & 31)) & 1u)) s[mb][n][2 * r + e] = -INFINITY;
                        }
                    }
                }
            }
            // online softmax over this tile, rows g (r = 0) and g + 8 (r = 1)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                float mx = m[mb][r];
#pragma unroll
                for (int n = 0; n < NB; ++n) mx = fmaxf(mx, fmaxf(s[mb][n][2 * r], s[mb][n][2 * r + 1]));
                mx = quad_max(mx);
                const float base = mx == -INFINITY ? 0.f : mx * sl2;
                const float alpha = exp2_approx(m[mb][r] * sl2 - base);
                m[mb][r] = mx;
                float sum = 0.f;
#pragma unroll
                for (int n = 0; n < NB; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        float p = exp2_approx(fmaf(s[mb][n][2 * r + e], sl2, -base));
                        s[mb][n][2 * r + e] = p;
                        sum += p;
                    }
                }
                l[mb][r] = l[mb][r] * alpha + sum;
#pragma unroll
                for (int d = 0; d < DB; ++d) {
                    o[mb][d][2 * r] *= alpha;
                    o[mb][d][2 * r + 1] *= alpha;
                }
            }
        }
        // O += P V, each V fragment shared by the warp's m16 blocks
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            uint32_t a[MB][4];
#pragma unroll
            for (int mb = 0; mb < MB; ++mb) {
                a[mb][0] = Elem<T>::pack(s[mb][2 * kc][0], s[mb][2 * kc][1]);
                a[mb][1] = Elem<T>::pack(s[mb][2 * kc][2], s[mb][2 * kc][3]);
                a[mb][2] = Elem<T>::pack(s[mb][2 * kc + 1][0], s[mb][2 * kc + 1][1]);
                a[mb][3] = Elem<T>::pack(s[mb][2 * kc + 1][2], s[mb][2 * kc + 1][3]);
            }
#pragma unroll
            for (int d2 = 0; d2 < DB / 2; ++d2) {
                uint32_t bv[4];
                ldmatrix_x4_trans(bv, addr_a_order<D>(tV, kc * 16, d2 * 2, lane));
#pragma unroll
                for (int mb = 0; mb < MB; ++mb) {
                    Elem<T>::mma(o[mb][2 * d2], a[mb], bv[0], bv[1]);
                    Elem<T>::mma(o[mb][2 * d2 + 1], a[mb], bv[2], bv[3]);
                }
            }
        }
        __syncthreads();
    }

    // epilogue: normalise, stage O through shared memory for 16-byte stores, write LSE
#pragma unroll
    for (int mb = 0; mb < MB; ++mb) {
        const int r0 = (warp * MB + mb) * 16;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float sum = quad_sum(l[mb][r]);
            const float inv = sum > 0.f ? 1.f / sum : 0.f;
            const int rowInTile = r0 + g + 8 * r;
#pragma unroll
            for (int d = 0; d < DB; ++d) {
                uint32_t v = Elem<T>::pack(o[mb][d][2 * r] * inv, o[mb][d][2 * r + 1] * inv);
                *reinterpret_cast<uint32_t*>(sQ + Swizzled<D>::elem(rowInTile, d * 8 + 2 * t)) = v;
            }
            const int q = q0 + rowInTile;
            if (t == 0 && q < Sq) {
                LSE[(size_t)bh * Sq + q] = sum > 0.f ? (m[mb][r] * sl2 + __log2f(sum)) * LN2 : -INFINITY;
            }
        }
    }
    __syncthreads();
    T* Oh = O + (size_t)bh * Sq * D;
    constexpr int CHUNKS = D / 8;
    for (int i = tid; i < BQ * CHUNKS; i += THREADS) {
        const int r = i / CHUNKS;
        const int c = i % CHUNKS;
        if (q0 + r < Sq) {
            *reinterpret_cast<uint4*>(Oh + (size_t)(q0 + r) * D + c * 8) =
                *reinterpret_cast<const uint4*>(sQ + Swizzled<D>::chunk(r, c));
        }
    }
}

template <int BQ, int BKV>
__host__ __device__ constexpr int fwd_warps() {
    // two m16 blocks per warp halve the shared-memory reads of K and V, when the registers allow it
    return (BQ == 128 && BKV <= 64) ? 4 : BQ / 16;
}

}  // namespace saw

#define SAW_FWD(NAME, T, D, BQ, BKV)                                                                          \
    extern "C" __global__ void __launch_bounds__(saw::fwd_warps<BQ, BKV>() * 32) NAME(                     \
        const T* Q, const T* K, const T* V, T* O, float* LSE, const int* order, const int* variantOf,       \
        const int* rowPtr, const int* rowPartial, const int* kvIdx, const int* maskIdx, const uint32_t* bits, \
        int H, int Hkv, int Sq, int Skv, int nq, float scale, float softcap) {                              \
        saw::attention_fwd<T, D, BQ, BKV, saw::fwd_warps<BQ, BKV>()>(Q, K, V, O, LSE, order, variantOf,      \
                                                                     rowPtr, rowPartial, kvIdx, maskIdx,   \
                                                                     bits, H, Hkv, Sq, Skv, nq, scale,     \
                                                                     softcap);                             \
    }

#define SAW_FWD_TILES(TN, T, D)                        \
    SAW_FWD(fwd_##TN##_d##D##_q64_kv32, T, D, 64, 32)   \
    SAW_FWD(fwd_##TN##_d##D##_q64_kv64, T, D, 64, 64)   \
    SAW_FWD(fwd_##TN##_d##D##_q64_kv128, T, D, 64, 128) \
    SAW_FWD(fwd_##TN##_d##D##_q128_kv32, T, D, 128, 32) \
    SAW_FWD(fwd_##TN##_d##D##_q128_kv64, T, D, 128, 64) \
    SAW_FWD(fwd_##TN##_d##D##_q128_kv128, T, D, 128, 128)

SAW_FWD_TILES(bf16, __nv_bfloat16, 64)
SAW_FWD_TILES(bf16, __nv_bfloat16, 128)
SAW_FWD_TILES(fp16, __half, 64)
SAW_FWD_TILES(fp16, __half, 128)

// head dim 256, forward only: 64-row q tiles keep the O accumulator and Q fragments in registers (ptxas: 239 and 255
// registers, no spills, on sm_90a); 128-row tiles and the backward at D=256 spill
#define SAW_FWD_TILES_D256(TN, T)                           \
    SAW_FWD(fwd_##TN##_d256_q64_kv32, T, 256, 64, 32)       \
    SAW_FWD(fwd_##TN##_d256_q64_kv64, T, 256, 64, 64)

SAW_FWD_TILES_D256(bf16, __nv_bfloat16)
SAW_FWD_TILES_D256(fp16, __half)
