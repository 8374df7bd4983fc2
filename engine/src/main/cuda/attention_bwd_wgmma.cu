// Block-sparse attention backward for Hopper (sm_90a): the same arguments, column tables, launch order and outputs
// as attention_bwd.cu's bwd_* kernels (see its header; this file uses its add4_pair and BwdColumns, so it is
// included after it), with warpgroup MMA (wgmma) instead of mma.sync. One CTA per (kv-tile of 128 rows, kv-head,
// batch), two warpgroups of 64 kv rows each; dK and dV accumulate in registers. K and V sit in shared memory in
// wgmma's 128-byte swizzle; Q, dO, LSE and Dsum come in double-buffered steps of 64 q rows. Per step and
// warpgroup: S^T = K Q^T and dP^T = V dO^T read both operands from shared memory; P^T and dS^T stay in registers
// as the A operands of dV += P^T dO and dK += dS^T Q (dO and Q read N-major); dS^T also goes to shared memory,
// where dQ += dS K reads it MN-major (transposed A), and dQ is added to the fp32 accumulator with atomics.
//
// Built only in the sm_90a pass (__CUDA_ARCH_FEAT_SM90_ALL); the sm_80 image holds entry points that trap, and
// the host launches these only on compute capability 9.0.

#include "wgmma.cuh"

namespace saw {

constexpr int WB_THREADS = 256;

template <typename T, int D, bool CAPPED>
__device__ __forceinline__ void attention_bwd_wgmma(
    const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V, const T* __restrict__ dO,
    const float* __restrict__ LSE, const float* __restrict__ Dsum, float* __restrict__ dQacc, T* __restrict__ dK,
    T* __restrict__ dV, const int* __restrict__ order, const int* __restrict__ variantOf,
    const int* __restrict__ colPtr, const int* __restrict__ colPartial, const int* __restrict__ qIdx,
    const int* __restrict__ maskIdx, const uint32_t* __restrict__ bitsT, int H, int Hkv, int Sq, int Skv, int nkv,
    float scale, float softcap) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr int BQ = 128;
    constexpr int BKV = 128;
    constexpr int QS = 64;  // q rows per step
    constexpr int SUBS = BQ / QS;
    constexpr int WORDS = BQ / 32;
    constexpr int SR = QS / 2;  // score accumulators per thread: 64 kv x 64 q per warpgroup
    constexpr int OR = D / 2;   // dK and dV accumulators per thread: 64 kv x D per warpgroup
    constexpr uint32_t KV_PANEL = BKV * 128;   // bytes of one 64-column panel of K or V
    constexpr uint32_t STEP_PANEL = QS * 128;  // bytes of one 64-column panel of a Q or dO step
    constexpr uint32_t STEP_BYTES = QS * D * 2;
    using KvTile = Sw128<BKV, D>;
    using DsTile = Sw128<BKV, QS>;

    extern __shared__ unsigned char smemRaw[];
    // 128-byte swizzle is computed from address bits: every panel must start on a 1024-byte boundary
    const uint32_t rawAddr = smem_u32(smemRaw);
    T* sK = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    T* sV = sK + BKV * D;
    T* sQ = sV + BKV * D;       // 2 stages of QS x D
    T* sdO = sQ + 2 * QS * D;   // 2 stages of QS x D
    T* sdS = sdO + 2 * QS * D;  // BKV x QS, dS transposed
    float* sLse = reinterpret_cast<float*>(sdS + BKV * QS);  // 2 stages of QS
    float* sDs = sLse + 2 * QS;                                // 2 stages of QS
    const uint32_t aK = smem_u32(sK);
    const uint32_t aV = smem_u32(sV);
    const uint32_t aQ = smem_u32(sQ);
    const uint32_t adO = smem_u32(sdO);
    const uint32_t adS = smem_u32(sdS);

    const int tid = threadIdx.x;
    const int wg = tid >> 7;
    const int lane = tid & 31;
    const int t = lane & 3;
    const int row0 = wg * 64 + ((tid >> 5) & 3) * 16 + (lane >> 2);  // this thread's first kv row; the second is + 8
    const int qRow0 = row0 - wg * 64;                                 // its first q row of a dQ product

    const BwdColumns cols = BwdColumns::of(order[blockIdx.x], variantOf, colPtr, colPartial, H, Hkv, nkv);
    const int b = cols.b;
    const int hkv = cols.hkv;
    const int group = cols.group;
    const int kv0 = cols.kb * BKV;

    const float sl2 = CAPPED ? LOG2E : scale * LOG2E;
    const float capIn = CAPPED ? scale / softcap : 0.f;

    BwdCursor cur = cols.start();
    const int steps = cols.steps(SUBS);

    auto loadStep = [&](const BwdCursor& c, int stage) {
        const size_t bh = (size_t)b * H + hkv * group + c.hi;
        const int q0 = qIdx[c.e] * BQ + c.sub * QS;
        load_tile_sw128<QS, D, WB_THREADS>(sQ + stage * QS * D, Q + bh * Sq * D, q0, Sq, tid);
        load_tile_sw128<QS, D, WB_THREADS>(sdO + stage * QS * D, dO + bh * Sq * D, q0, Sq, tid);
        load_row_stats<QS, WB_THREADS>(sLse + stage * QS, sDs + stage * QS, LSE, Dsum, bh, q0, Sq, tid);
    };

    const size_t kvHead = (size_t)(b * Hkv + hkv) * Skv * D;
    load_tile_sw128<BKV, D, WB_THREADS>(sK, K + kvHead, kv0, Skv, tid);
    load_tile_sw128<BKV, D, WB_THREADS>(sV, V + kvHead, kv0, Skv, tid);
    if (steps > 0) loadStep(cur, 0);
    cp_async_commit();

    float dk[OR];
    float dv[OR];
#pragma unroll
    for (int i = 0; i < OR; ++i) {
        dk[i] = 0.f;
        dv[i] = 0.f;
    }
    // this warpgroup's 64 kv rows of K and V, the A operands of S^T and dP^T (K-major)
    const uint32_t aKw = aK + wg * 64 * 128;
    const uint32_t aVw = aV + wg * 64 * 128;
    // acc = A B^T, A = 64 rows of K or V, B = a Q or dO step, both K-major: a k16 step moves 32 bytes inside a
    // 64-column panel, then on to the next panel
    auto issueAbt = [](float (&acc)[SR], uint32_t a, uint32_t b) {
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t inPanel = (kc & 3) * 32;
            Wgmma<T, 64>::ss(acc, sw128_desc(a + (kc >> 2) * KV_PANEL + inPanel, 16, 1024),
                             sw128_desc(b + (kc >> 2) * STEP_PANEL + inPanel, 16, 1024), kc > 0 ? 1 : 0);
        }
    };

    for (int it = 0; it < steps; ++it) {
        const int stage = it & 1;
        const BwdCursor next = cols.next<SUBS>(cur);
        cp_async_wait<0>();
        fence_proxy_async();
        __syncthreads();  // this step's tiles are in; every wgmma and read of step it - 1 is done
        if (it + 1 < steps) loadStep(next, stage ^ 1);  // into the buffers step it - 1 read
        cp_async_commit();

        const uint32_t qStep = aQ + stage * STEP_BYTES;
        const uint32_t doStep = adO + stage * STEP_BYTES;
        const float* tLse = sLse + stage * QS;
        const float* tDs = sDs + stage * QS;
        const int h = hkv * group + cur.hi;
        const int q0 = qIdx[cur.e] * BQ + cur.sub * QS;
        const bool partial = cur.e - cur.first < cur.partials;

        // S^T = K Q^T and dP^T = V dO^T, one commit group each
        float s[SR];
        float dp[SR];
        wgmma_fence();
        issueAbt(s, aKw, qStep);
        wgmma_commit();
        issueAbt(dp, aVw, doStep);
        wgmma_commit();
        wgmma_wait<1>();
        fence_regs(s);

        // P^T = exp(logits - LSE); rows that attend nothing (LSE = -inf) give 0. Capped logits keep their
        // derivative factor 1 - tanh^2 (in [0, 1]) as fp16 pairs: 16 registers instead of 32, which D = 128 needs
        __half2 dcap[CAPPED ? SR / 2 : 1];
#pragma unroll
        for (int n = 0; n < QS / 8; ++n) {
            const float2 lse = *reinterpret_cast<const float2*>(tLse + n * 8 + 2 * t);
            const float bias[2] = {lse.x == -INFINITY ? -INFINITY : -lse.x * LOG2E,
                                   lse.y == -INFINITY ? -INFINITY : -lse.y * LOG2E};
            float c[4];
#pragma unroll
            for (int x = 0; x < 4; ++x) {
                const int i = 4 * n + x;
                float z = s[i];
                if constexpr (CAPPED) {
                    const float th = tanhf(z * capIn);
                    z = softcap * th;
                    c[x] = 1.f - th * th;
                }
                s[i] = exp2_approx(fmaf(z, sl2, bias[x & 1]));
            }
            if constexpr (CAPPED) {
                dcap[2 * n] = __floats2half2_rn(c[0], c[1]);
                dcap[2 * n + 1] = __floats2half2_rn(c[2], c[3]);
            }
        }
        if (partial) {
            const uint32_t* tileBits = bitsT + (size_t)maskIdx[cur.e] * BKV * WORDS;
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const uint32_t* rowBits = tileBits + (row0 + 8 * r) * WORDS + cur.sub * (QS / 32);
                const uint32_t w0 = __ldg(rowBits);
                const uint32_t w1 = __ldg(rowBits + 1);
#pragma unroll
                for (int n = 0; n < QS / 8; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int j = n * 8 + 2 * t + e;
                        const uint32_t w = j < 32 ? w0 : w1;
                        if (!((w >> (j & 31)) & 1u)) s[4 * n + 2 * r + e] = 0.f;
                    }
                }
            }
        }

        // dV += P^T dO: P^T in the accumulator layout is the A fragment of k16 step kc (n8 blocks 2kc, 2kc + 1);
        // dO read N-major, 16 q rows (2048 bytes) per step, 64-column panels STEP_PANEL bytes apart
        uint32_t p[QS / 16][4];
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
#pragma unroll
            for (int x = 0; x < 4; ++x) p[kc][x] = Elem<T>::pack(s[8 * kc + 2 * x], s[8 * kc + 2 * x + 1]);
        }
        fence_regs(dv);
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
            Wgmma<T, D>::rs_nmajor(dv, p[kc], sw128_desc(doStep + kc * 16 * 128, STEP_PANEL, 1024), 1);
        }
        wgmma_commit();
        wgmma_wait<1>();  // dP^T has landed; dV may still run
        fence_regs(dp);

        // dS^T = P^T (dP^T - Dsum) (1 - tanh^2)
#pragma unroll
        for (int n = 0; n < QS / 8; ++n) {
            const float2 dsum = *reinterpret_cast<const float2*>(tDs + n * 8 + 2 * t);
#pragma unroll
            for (int x = 0; x < 4; ++x) {
                const int i = 4 * n + x;
                s[i] *= dp[i] - ((x & 1) ? dsum.y : dsum.x);
                if constexpr (CAPPED) {
                    const float2 c = __half22float2(dcap[2 * n + (x >> 1)]);
                    s[i] *= (x & 1) ? c.y : c.x;
                }
            }
        }
        wgmma_wait<0>();  // dV has read P^T's registers
        fence_regs(dv);
        fence_frags(p);
        uint32_t ds[QS / 16][4];
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
#pragma unroll
            for (int x = 0; x < 4; ++x) {
                ds[kc][x] = Elem<T>::pack(s[8 * kc + 2 * x], s[8 * kc + 2 * x + 1]);
                // A fragment register x: row + 8 (x & 1), n8 block 2kc + (x >> 1)
                *reinterpret_cast<uint32_t*>(sdS + DsTile::elem(row0 + 8 * (x & 1), 16 * kc + 8 * (x >> 1) + 2 * t)) =
                    ds[kc][x];
            }
        }
        // dK += dS^T Q, Q read N-major like dO
        fence_regs(dk);
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
            Wgmma<T, D>::rs_nmajor(dk, ds[kc], sw128_desc(qStep + kc * 16 * 128, STEP_PANEL, 1024), 1);
        }
        wgmma_commit();
        fence_proxy_async();
        __syncthreads();  // both warpgroups' dS^T rows are in shared memory

        // dQ += dS K: dS^T read MN-major (q contiguous), K read N-major; k16 steps are 16 kv rows (2048 bytes).
        // D = 128: warpgroup wg makes dQ columns [64 wg, 64 wg + 64) over all 128 kv rows (K's column panel wg);
        // D = 64: warpgroup wg makes all 64 columns over its own 64 kv rows, and both add theirs.
        constexpr int DQ_STEPS = D == 128 ? BKV / 16 : BKV / 32;
        const uint32_t kvFirst = D == 128 ? 0u : (uint32_t)wg * 64 * 128;
        const uint32_t kPanel = D == 128 ? (uint32_t)wg * KV_PANEL : 0u;
        float dq[32];
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < DQ_STEPS; ++kc) {
            const uint32_t rows = kvFirst + kc * 16 * 128;
            WgmmaSs64<T>::template run<1, 1>(dq, sw128_desc(adS + rows, 64 * 128, 1024),
                                             sw128_desc(aK + kPanel + rows, KV_PANEL, 1024), kc > 0 ? 1 : 0);
        }
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(dq);
        fence_regs(dk);
        fence_frags(ds);

        float* dQh = dQacc + ((size_t)b * H + h) * Sq * D + (D == 128 ? wg * 64 : 0);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int qr = q0 + qRow0 + 8 * r;
            float* dst = dQh + (size_t)qr * D;
#pragma unroll
            for (int np = 0; np < 4; ++np) {
                add4_pair(dst + np * 16, dq[8 * np + 2 * r], dq[8 * np + 2 * r + 1], dq[8 * np + 4 + 2 * r],
                          dq[8 * np + 4 + 2 * r + 1], t, qr < Sq);
            }
        }
        cur = next;
    }

    // epilogue: dK = scale * acc, dV = acc, staged through the Q and dO buffers (each BKV x D) for 16-byte stores
    cp_async_wait<0>();
    __syncthreads();
    T* eK = sQ;
    T* eV = sdO;
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int at = KvTile::elem(row0 + 8 * r, n * 8 + 2 * t);
            *reinterpret_cast<uint32_t*>(eK + at) = Elem<T>::pack(dk[4 * n + 2 * r] * scale, dk[4 * n + 2 * r + 1] * scale);
            *reinterpret_cast<uint32_t*>(eV + at) = Elem<T>::pack(dv[4 * n + 2 * r], dv[4 * n + 2 * r + 1]);
        }
    }
    __syncthreads();
    constexpr int CHUNKS = D / 8;
    for (int i = tid; i < BKV * CHUNKS; i += WB_THREADS) {
        const int r = i / CHUNKS;
        const int c = i % CHUNKS;
        if (kv0 + r < Skv) {
            const size_t at = kvHead + (size_t)(kv0 + r) * D + c * 8;
            *reinterpret_cast<uint4*>(dK + at) = *reinterpret_cast<const uint4*>(eK + KvTile::chunk(r, c));
            *reinterpret_cast<uint4*>(dV + at) = *reinterpret_cast<const uint4*>(eV + KvTile::chunk(r, c));
        }
    }
#else
    __trap();  // wgmma needs sm_90a; the host never launches this elsewhere
#endif
}

}  // namespace saw

#define SAW_BWD_WGMMA(NAME, T, D, CAPPED)                                                                      \
    extern "C" __global__ void __launch_bounds__(saw::WB_THREADS, 1) NAME(                                     \
        const T* Q, const T* K, const T* V, const T* dO, const float* LSE, const float* Dsum, float* dQacc,    \
        T* dK, T* dV, const int* order, const int* variantOf, const int* colPtr, const int* colPartial,        \
        const int* qIdx, const int* maskIdx, const uint32_t* bitsT, int H, int Hkv, int Sq, int Skv, int nkv,   \
        float scale, float softcap) {                                                                           \
        saw::attention_bwd_wgmma<T, D, CAPPED>(Q, K, V, dO, LSE, Dsum, dQacc, dK, dV, order, variantOf, colPtr, \
                                               colPartial, qIdx, maskIdx, bitsT, H, Hkv, Sq, Skv, nkv, scale,  \
                                               softcap);                                                        \
    }

SAW_BWD_WGMMA(bwd_wgmma_bf16_d64_q128_kv128, __nv_bfloat16, 64, false)
SAW_BWD_WGMMA(bwd_wgmma_bf16_d128_q128_kv128, __nv_bfloat16, 128, false)
SAW_BWD_WGMMA(bwd_wgmma_fp16_d64_q128_kv128, __half, 64, false)
SAW_BWD_WGMMA(bwd_wgmma_fp16_d128_q128_kv128, __half, 128, false)
SAW_BWD_WGMMA(bwd_wgmma_bf16_d64_q128_kv128_softcap, __nv_bfloat16, 64, true)
SAW_BWD_WGMMA(bwd_wgmma_bf16_d128_q128_kv128_softcap, __nv_bfloat16, 128, true)
SAW_BWD_WGMMA(bwd_wgmma_fp16_d64_q128_kv128_softcap, __half, 64, true)
SAW_BWD_WGMMA(bwd_wgmma_fp16_d128_q128_kv128_softcap, __half, 128, true)
