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
constexpr int WG_BQ = 128;
constexpr int WG_BKV = 128;
constexpr int WG_STAGES = 3;  // K/V buffers: Q + 3 x (K, V) = 224 KB at D = 128, inside Hopper's 227 KB

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// What every step of a CTA needs: its row of the layout, its heads' pointers and this thread's place.
template <typename T, int D>
struct WgCta {
    static constexpr int BQ = WG_BQ;
    static constexpr int BKV = WG_BKV;
    static constexpr int SR = BKV / 2;  // score accumulators per thread (64 x BKV per warpgroup)
    static constexpr int OR = D / 2;    // output accumulators per thread
    static constexpr int WORDS = BKV / 32;
    static constexpr uint32_t KV_BYTES = BKV * D * 2;
    using QTile = Sw128<BQ, D>;

    T* sQ;
    T* sK;
    T* sV;
    int tid, wg, rowInTile0, t;  // rowInTile0: this thread's first row (g) in the 128-row tile; the second is + 8
    int bh, q0, begin, count, partials;
    const T* Kh;
    const T* Vh;
    const int* kvIdx;
    const int* maskIdx;
    const uint32_t* bits;
    int Skv;
    bool capped;
    float sl2, capIn, softcap;

    __device__ __forceinline__ void loadKv(T* tile, const T* src, int i) const {
        load_tile_sw128<BKV, D, WG_THREADS>(tile, src, kvIdx[begin + i] * BKV, Skv, tid);
    }
    __device__ __forceinline__ uint32_t qAddr() const { return smem_u32(sQ) + wg * 64 * 128; }

    // S = Q K^T over D/16 k16 steps: inside a 64-column panel a step moves 32 bytes, a new panel 128 rows further
    __device__ __forceinline__ void issueScores(float (&s)[SR], int kStage) const {
        const uint32_t k = smem_u32(sK) + kStage * KV_BYTES;
        const uint32_t q = qAddr();
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t inPanel = (kc & 3) * 32;
            Wgmma<T, BKV>::ss(s, sw128_desc(q + (kc >> 2) * (BQ * 128) + inPanel, 16, 1024),
                              sw128_desc(k + (kc >> 2) * (BKV * 128) + inPanel, 16, 1024), kc > 0 ? 1 : 0);
        }
    }

    // O += P V: V read N-major, 16 kv rows (2048 bytes) per step, 64-column panels BKV * 128 bytes apart
    __device__ __forceinline__ void issueOutput(float (&o)[OR], const uint32_t (&p)[BKV / 16][4], int vStage) const {
        const uint32_t v = smem_u32(sV) + vStage * KV_BYTES;
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            Wgmma<T, D>::rs_nmajor(o, p[kc], sw128_desc(v + kc * 16 * 128, BKV * 128, 1024), 1);
        }
    }

    // softcap and the token mask of tile i (PARTIAL tiles only) on the scores; then the online softmax: s becomes
    // P (unnormalised, fp32), m and l move on, alpha[r] is what row r's O must be multiplied by
    __device__ __forceinline__ void softmax(float (&s)[SR], int i, float (&m)[2], float (&l)[2], float (&alpha)[2]) const {
        if (capped) {
#pragma unroll
            for (int x = 0; x < SR; ++x) s[x] = softcap * tanhf(s[x] * capIn);
        }
        if (i < partials) {
            const uint32_t* tileBits = bits + (size_t)maskIdx[begin + i] * BQ * WORDS;
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const uint32_t* rowBits = tileBits + (rowInTile0 + 8 * r) * WORDS;
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
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float mx = m[r];
#pragma unroll
            for (int n = 0; n < BKV / 8; ++n) mx = fmaxf(mx, fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]));
            mx = quad_max(mx);
            const float base = mx == -INFINITY ? 0.f : mx * sl2;
            alpha[r] = exp2_approx(m[r] * sl2 - base);
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
            l[r] = l[r] * alpha[r] + sum;
        }
    }

    static __device__ __forceinline__ void rescale(float (&o)[OR], const float (&alpha)[2]) {
#pragma unroll
        for (int n = 0; n < D / 8; ++n) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                o[4 * n + 2 * r] *= alpha[r];
                o[4 * n + 2 * r + 1] *= alpha[r];
            }
        }
    }

    // P in the accumulator layout is the A fragment of the k16 steps of P V (n8 blocks 2kc and 2kc + 1)
    static __device__ __forceinline__ void pack(uint32_t (&p)[BKV / 16][4], const float (&s)[SR]) {
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
#pragma unroll
            for (int x = 0; x < 4; ++x) p[kc][x] = Elem<T>::pack(s[8 * kc + 2 * x], s[8 * kc + 2 * x + 1]);
        }
    }

    // normalise, stage O through sQ for 16-byte stores, write LSE (callers sync before: sQ is free)
    __device__ __forceinline__ void epilogue(const float (&o)[OR], const float (&m)[2], const float (&l)[2], T* O, float* LSE,
                                             int Sq) const {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float sum = quad_sum(l[r]);
            const float inv = sum > 0.f ? 1.f / sum : 0.f;
            const int rowInTile = rowInTile0 + 8 * r;
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
    }
};

#endif

// OVERLAP = false: per kv-tile, S = Q K^T, softmax, O += P V, each waited for before the next (K and V of the
// next tile load meanwhile). OVERLAP = true (FlashAttention-3's intra-warpgroup overlap): S of tile i + 1 and
// P V of tile i are in flight while the softmax of tile i + 1 runs; K runs one tile ahead of V in the loads.
template <typename T, int D, bool OVERLAP>
__device__ __forceinline__ void attention_fwd_wgmma(
    const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V, T* __restrict__ O,
    float* __restrict__ LSE, const int* __restrict__ order, const int* __restrict__ variantOf,
    const int* __restrict__ rowPtr, const int* __restrict__ rowPartial, const int* __restrict__ kvIdx,
    const int* __restrict__ maskIdx, const uint32_t* __restrict__ bits, int H, int Hkv, int Sq, int Skv, int nq,
    float scale, float softcap) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using Cta = WgCta<T, D>;
    constexpr int BQ = Cta::BQ;
    constexpr int BKV = Cta::BKV;
    constexpr int ST = WG_STAGES;

    extern __shared__ unsigned char smemRaw[];
    // 128-byte swizzle is computed from address bits: every panel must start on a 1024-byte boundary
    const uint32_t rawAddr = smem_u32(smemRaw);
    Cta c;
    c.sQ = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    c.sK = c.sQ + BQ * D;
    c.sV = c.sK + ST * BKV * D;
    c.tid = threadIdx.x;
    c.wg = c.tid >> 7;
    const int lane = c.tid & 31;
    c.rowInTile0 = c.wg * 64 + ((c.tid >> 5) & 3) * 16 + (lane >> 2);
    c.t = lane & 3;

    const int item = order[blockIdx.x];
    const int qb = item % nq;
    c.bh = item / nq;
    const int h = c.bh % H;
    const int b = c.bh / H;
    const int hkv = h / (H / Hkv);
    const int row = variantOf[c.bh] * nq + qb;
    c.begin = rowPtr[row];
    c.count = rowPtr[row + 1] - c.begin;
    c.partials = rowPartial[row];
    c.q0 = qb * BQ;
    c.Kh = K + (size_t)(b * Hkv + hkv) * Skv * D;
    c.Vh = V + (size_t)(b * Hkv + hkv) * Skv * D;
    c.kvIdx = kvIdx;
    c.maskIdx = maskIdx;
    c.bits = bits;
    c.Skv = Skv;
    c.capped = softcap > 0.f;
    c.sl2 = c.capped ? LOG2E : scale * LOG2E;
    c.capIn = c.capped ? scale / softcap : 0.f;
    c.softcap = softcap;
    const T* Qh = Q + (size_t)c.bh * Sq * D;
    const int count = c.count;

    float o[Cta::OR];
    float m[2] = {-INFINITY, -INFINITY};
    float l[2] = {0.f, 0.f};
    float alpha[2];
    float s[Cta::SR];
    uint32_t p[BKV / 16][4];
#pragma unroll
    for (int i = 0; i < Cta::OR; ++i) o[i] = 0.f;

    // stage indices rotate through ST buffers; tile i's K and V sit in stage i % ST
    auto nextStage = [](int st) { return st + 1 == ST ? 0 : st + 1; };
    if (!OVERLAP) {
        // tile i's K and V form one cp.async group, issued ST - 1 tiles ahead
        if (count > 0) {
            load_tile_sw128<BQ, D, WG_THREADS>(c.sQ, Qh, c.q0, Sq, c.tid);
        }
#pragma unroll
        for (int i = 0; i < ST - 1; ++i) {
            if (i < count) {
                c.loadKv(c.sK + i * BKV * D, c.Kh, i);
                c.loadKv(c.sV + i * BKV * D, c.Vh, i);
            }
            cp_async_commit();
        }
        int cur = 0;
        int ahead = ST - 1;
        for (int it = 0; it < count; ++it) {
            if (it + ST - 1 < count) {  // into the stage that step it - 1 finished reading
                c.loadKv(c.sK + ahead * BKV * D, c.Kh, it + ST - 1);
                c.loadKv(c.sV + ahead * BKV * D, c.Vh, it + ST - 1);
            }
            cp_async_commit();
            cp_async_wait<ST - 1>();
            fence_proxy_async();
            __syncthreads();
            wgmma_fence();
            c.issueScores(s, cur);
            wgmma_commit();
            wgmma_wait<0>();
            fence_regs(s);
            c.softmax(s, it, m, l, alpha);
            Cta::rescale(o, alpha);
            Cta::pack(p, s);
            fence_regs(o);
            wgmma_fence();
            c.issueOutput(o, p, cur);
            wgmma_commit();
            wgmma_wait<0>();
            fence_regs(o);
            __syncthreads();
            cur = nextStage(cur);
            ahead = nextStage(ahead);
        }
    } else if (count > 0) {
        // K runs one tile ahead of V. Groups: G0 = {Q, K0}, G(i) = {K(i), V(i - 1)}; G1 and G2 in the prologue,
        // G(i + 3) at the end of step i, into the stages that steps i - 1 and i have finished reading.
        static_assert(ST == 3, "the overlapped schedule is written for three stages");
        load_tile_sw128<BQ, D, WG_THREADS>(c.sQ, Qh, c.q0, Sq, c.tid);
        c.loadKv(c.sK, c.Kh, 0);
        cp_async_commit();
#pragma unroll
        for (int i = 1; i <= 2; ++i) {
            if (i < count) c.loadKv(c.sK + i * BKV * D, c.Kh, i);
            if (i - 1 < count) c.loadKv(c.sV + (i - 1) * BKV * D, c.Vh, i - 1);
            cp_async_commit();
        }
        cp_async_wait<2>();
        fence_proxy_async();
        __syncthreads();
        wgmma_fence();
        c.issueScores(s, 0);
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(s);
        c.softmax(s, 0, m, l, alpha);  // O is still 0: no rescale
        Cta::pack(p, s);

        int vCur = 0;   // stage of V(it) and K(it)
        int kNext = 1;  // stage of K(it + 1)
        for (int it = 0; it + 1 < count; ++it) {
            cp_async_wait<1>();  // G(it + 1) = {K(it + 1), V(it)} landed
            fence_proxy_async();
            __syncthreads();
            fence_regs(o);
            wgmma_fence();
            c.issueScores(s, kNext);
            wgmma_commit();
            c.issueOutput(o, p, vCur);
            wgmma_commit();
            wgmma_wait<1>();
            fence_regs(s);
            c.softmax(s, it + 1, m, l, alpha);
            wgmma_wait<0>();
            fence_regs(o);
            Cta::rescale(o, alpha);
            Cta::pack(p, s);
            __syncthreads();  // K(it) (step it - 1) and V(it - 1) (step it - 1) are read by now
            const int vPrev = vCur == 0 ? ST - 1 : vCur - 1;
            if (it + 3 < count) c.loadKv(c.sK + vCur * BKV * D, c.Kh, it + 3);
            if (it + 2 < count) c.loadKv(c.sV + vPrev * BKV * D, c.Vh, it + 2);
            cp_async_commit();
            vCur = kNext;
            kNext = nextStage(kNext);
        }
        // the last tile: P V only (a conditional S above would make the compiler serialise the wgmmas)
        cp_async_wait<0>();
        fence_proxy_async();
        __syncthreads();
        fence_regs(o);
        wgmma_fence();
        c.issueOutput(o, p, vCur);
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(o);
        __syncthreads();
    }
    c.epilogue(o, m, l, O, LSE, Sq);
#else
    __trap();  // wgmma needs sm_90a; the host never launches this elsewhere
#endif
}

}  // namespace saw

#define SAW_FWD_WGMMA(NAME, T, D, OVERLAP)                                                                              \
    extern "C" __global__ void __launch_bounds__(saw::WG_THREADS, 1) NAME(                                    \
        const T* Q, const T* K, const T* V, T* O, float* LSE, const int* order, const int* variantOf,        \
        const int* rowPtr, const int* rowPartial, const int* kvIdx, const int* maskIdx, const uint32_t* bits,  \
        int H, int Hkv, int Sq, int Skv, int nq, float scale, float softcap) {                               \
        saw::attention_fwd_wgmma<T, D, OVERLAP>(Q, K, V, O, LSE, order, variantOf, rowPtr, rowPartial, kvIdx, maskIdx, \
                                       bits, H, Hkv, Sq, Skv, nq, scale, softcap);                            \
    }

SAW_FWD_WGMMA(fwd_wgmma_bf16_d64_q128_kv128, __nv_bfloat16, 64, false)
SAW_FWD_WGMMA(fwd_wgmma_bf16_d128_q128_kv128, __nv_bfloat16, 128, false)
SAW_FWD_WGMMA(fwd_wgmma_fp16_d64_q128_kv128, __half, 64, false)
SAW_FWD_WGMMA(fwd_wgmma_fp16_d128_q128_kv128, __half, 128, false)
SAW_FWD_WGMMA(fwd_wgmmaov_bf16_d64_q128_kv128, __nv_bfloat16, 64, true)
SAW_FWD_WGMMA(fwd_wgmmaov_bf16_d128_q128_kv128, __nv_bfloat16, 128, true)
SAW_FWD_WGMMA(fwd_wgmmaov_fp16_d64_q128_kv128, __half, 64, true)
SAW_FWD_WGMMA(fwd_wgmmaov_fp16_d128_q128_kv128, __half, 128, true)
