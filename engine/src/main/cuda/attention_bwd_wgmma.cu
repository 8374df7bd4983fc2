// Block-sparse attention backward for Hopper (sm_90a) at head dims 64 and 128: the same arguments, column tables,
// launch order and outputs as attention_bwd.cu's bwd_* kernels (see its header; this file uses its SAW_BWD_PARAMS,
// add4_pair and BwdColumns, so it is included after it), with warpgroup MMA (wgmma) instead of mma.sync, and
// 128-row kv tiles, two compute warpgroups of 64 kv rows each; dK and dV accumulate in registers. K and V sit in
// shared memory in wgmma's 128-byte swizzle; Q and dO come in steps of 64 q rows (LSE and Dsum in registers, see
// WarpRowStats). Per step and warpgroup: S^T = K Q^T and dP^T = V dO^T read both operands from shared memory; P^T
// and dS^T stay in registers as the A operands of dV += P^T dO and dK += dS^T Q (dO and Q read N-major); dS^T also
// goes to shared memory, where dQ += dS K reads it MN-major (transposed A). The one family here, bwd_wgmmaws_*
// (wgmma-ws), runs these steps (BwdWg::step) on two consumer warpgroups fed by a producer warpgroup through an
// mbarrier ring, with dQ added by one bulk reduce-add per step (attention_bwd_wgmma_ws below). The first Hopper
// backward family, whose two warpgroups loaded and computed in lock-step and added dQ with atomics, was retired; it
// remains in git history (docs/kernel-notes.md, "Retired Hopper families").
//
// Built only in the sm_90a pass (__CUDA_ARCH_FEAT_SM90_ALL); the sm_80 image holds entry points that trap, and
// the host launches these only on compute capability 9.0.

#include "pipeline.cuh"
#include "wgmma.cuh"

namespace saw {

// the two compute warpgroups of the warp-specialised backward
constexpr int WB_THREADS = 256;
// warp-specialised backward: a producer warpgroup and the two compute warpgroups; Q/dO stages in the ring (3: 225 KB
// of shared memory at D = 128 with the fp32 dQ tile, a fourth would pass the 227 KB limit)
constexpr int WBS_THREADS = 384;
constexpr int WBS_STAGES = 3;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// The exponent bias of P = exp2(logit log2e - LSE log2e) for a row: -LSE log2e, or -inf for a row that attends
// nothing (LSE = -inf), so that its probabilities are 0
__device__ __forceinline__ float lse_bias(float lse) {
    return lse == -INFINITY ? -INFINITY : -lse * LOG2E;
}

// A step's LSE and Dsum as BwdWg::step reads them: for n8 block n, the pair of q columns (8n + 2t, 8n + 2t + 1), LSE
// as its exponent bias (lse_bias). step calls prepare() once its first products are issued.
// SharedRowStats: from the stage in shared memory (nsa_bwd_wgmma in nsa.cu: cp.async, then cp.async.wait_group and
// __syncthreads).
struct SharedRowStats {
    const float* lse;
    const float* ds;
    __device__ __forceinline__ void prepare() {}
    __device__ __forceinline__ float2 bias2(int n, int t) const {
        const float2 v = *reinterpret_cast<const float2*>(lse + n * 8 + 2 * t);
        return make_float2(lse_bias(v.x), lse_bias(v.y));
    }
    __device__ __forceinline__ float2 dsum2(int n, int t) const {
        return *reinterpret_cast<const float2*>(ds + n * 8 + 2 * t);
    }
};

// WarpRowStats: in registers, spread over the warp (lane l holds q rows l and 32 + l of the step), loaded with plain
// global loads and handed to the threads that need them by shuffles (bwd_wgmmaws). Through the ring they would be
// cp.async writes ordered before the consumers' shared loads only by cp.async.mbarrier.arrive, which
// compute-sanitizer racecheck does not model; LSE and Dsum are read-only here (written by earlier launches), so the
// consumers load them themselves, a step ahead, and no shared memory holds them. Rows past Sq read as 0, as in
// load_row_stats. prepare() turns the two LSE values of a lane into biases, so that the threads that receive them by
// shuffles use them as they are (the conversion per pair of columns was 3 instructions in the exp's chain).
struct WarpRowStats {
    float lse[2];  // the biases after prepare()
    float ds[2];
    __device__ __forceinline__ void load(const float* LSE, const float* Dsum, size_t bh, int q0, int Sq, int lane) {
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            const int q = q0 + 32 * k + lane;
            lse[k] = 0.f;
            ds[k] = 0.f;
            if (q < Sq) {
                lse[k] = __ldg(LSE + bh * Sq + q);
                ds[k] = __ldg(Dsum + bh * Sq + q);
            }
        }
    }
    // n is a compile-time constant in step's unrolled loops, so the register index is too
    static __device__ __forceinline__ float2 pair(const float (&v)[2], int n, int t) {
        const float x = v[n >> 2];
        const int from = (8 * n + 2 * t) & 31;
        return make_float2(__shfl_sync(0xffffffffu, x, from), __shfl_sync(0xffffffffu, x, from + 1));
    }
    __device__ __forceinline__ void prepare() {
        lse[0] = lse_bias(lse[0]);
        lse[1] = lse_bias(lse[1]);
    }
    __device__ __forceinline__ float2 bias2(int n, int t) const { return pair(lse, n, t); }
    __device__ __forceinline__ float2 dsum2(int n, int t) const { return pair(ds, n, t); }
};

// Two staged TILE tiles (dK and dV, 128-byte swizzle) to the rows of kv tile kv0 that exist (kvHead: the kv head's
// offset), 16 bytes per copy, by THREADS threads (the head dim 256 backward's epilogue)
template <class TILE, int THREADS, typename T>
__device__ __forceinline__ void store_staged_dkdv(const T* eK, const T* eV, T* dK, T* dV, size_t kvHead, int kv0, int Skv,
                                                  int thread) {
    constexpr int D = TILE::COLS;
    constexpr int CHUNKS = D / 8;
    for (int i = thread; i < TILE::ROWS * CHUNKS; i += THREADS) {
        const int r = i / CHUNKS;
        const int c = i % CHUNKS;
        if (kv0 + r < Skv) {
            const size_t at = kvHead + (size_t)(kv0 + r) * D + c * 8;
            *reinterpret_cast<uint4*>(dK + at) = *reinterpret_cast<const uint4*>(eK + TILE::chunk(r, c));
            *reinterpret_cast<uint4*>(dV + at) = *reinterpret_cast<const uint4*>(eV + TILE::chunk(r, c));
        }
    }
}

// A PARTIAL tile's token mask on P^T in the m64nNk16 accumulator layout of a 64-column q step: bit tile `tile` of
// bitsT (BKV kv rows of WORDS words), this thread's kv rows row0 and row0 + 8, two words from word0 on; a clear bit
// zeroes the probability. Shared by the Hopper backwards.
template <int BKV, int WORDS>
__device__ __forceinline__ void mask_pt(float (&s)[32], const uint32_t* bitsT, int tile, int row0, int word0, int t) {
    const uint32_t* tileBits = bitsT + (size_t)tile * BKV * WORDS;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const uint32_t* rowBits = tileBits + (row0 + 8 * r) * WORDS + word0;
        const uint32_t w0 = __ldg(rowBits);
        const uint32_t w1 = __ldg(rowBits + 1);
#pragma unroll
        for (int n = 0; n < 8; ++n) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int j = n * 8 + 2 * t + e;
                const uint32_t w = j < 32 ? w0 : w1;
                if (!((w >> (j & 31)) & 1u)) s[4 * n + 2 * r + e] = 0.f;
            }
        }
    }
}

// K and V as S^T's and dP^T's A operands: read by each wgmma from shared memory (NoKvFrags), or, at D = 64 in the
// warp-specialised kernel, held in registers as the m16n8k16 A fragments of this warp's 16 kv rows (KvFrags64, 32
// registers, loaded once per CTA), so that S^T and dP^T read only their B operand from shared memory
struct NoKvFrags {
    static constexpr bool IN_REGS = false;
};
struct KvFrags64 {
    static constexpr bool IN_REGS = true;
    uint32_t k[4][4];
    uint32_t v[4][4];
};
template <int D> struct KvFragsFor { using type = NoKvFrags; };
template <> struct KvFragsFor<64> { using type = KvFrags64; };

// The parts of a q step that every Hopper backward shares (BwdWg::step here, nsa_bwd_wgmma in nsa.cu): a warpgroup's
// 64 kv rows against a step of QS = 64 q rows, P^T and dS^T in the m64n64 accumulator layout (accumulator i: kv row
// g + 8 ((i / 2) % 2), q column 8 (i / 4) + 2t + i % 2), which is also the A fragment of k16 step kc (n8 blocks 2kc and
// 2kc + 1). The step's Q and dO tiles are read N-major, 16 q rows (2048 bytes) per k16 step, 64-column panels
// QS * 128 bytes apart.
template <typename T, int D, bool CAPPED>
struct BwdStepParts {
    static constexpr int QS = 64;
    static constexpr uint32_t STEP_PANEL = QS * 128;
    using Desc = DescStepsFor<D>;

    // P^T = exp(logits - LSE) over s in place, softcapped first (dcap: 1 - tanh^2 of each capped logit, in [0, 1], as
    // fp16 pairs: 16 registers instead of 32, which D = 128 needs); keep(n) gives, for n8 block n, what each
    // probability becomes (x: its place in the block's four accumulators), e.g. 0 for a key past the row's token
    template <class STATS, class KEEP, int DC>
    static __device__ __forceinline__ void pt(float (&s)[QS / 2], __half2 (&dcap)[DC], STATS stats, int t, float sl2,
                                              float capIn, float softcap, KEEP keep) {
#pragma unroll
        for (int n = 0; n < QS / 8; ++n) {
            const float2 bias = stats.bias2(n, t);
            const auto kept = keep(n);
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
                s[i] = kept(x, exp2_approx(fmaf(z, sl2, (x & 1) ? bias.y : bias.x)));
            }
            if constexpr (CAPPED) {
                dcap[2 * n] = __floats2half2_rn(c[0], c[1]);
                dcap[2 * n + 1] = __floats2half2_rn(c[2], c[3]);
            }
        }
    }

    // P^T packed into A fragments, then dV += P^T dO issued as one commit group
    static __device__ __forceinline__ void issueDv(float (&dv)[D / 2], uint32_t (&p)[QS / 16][4], const float (&s)[QS / 2],
                                                   uint32_t doStep) {
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
#pragma unroll
            for (int x = 0; x < 4; ++x) p[kc][x] = Elem<T>::pack(s[8 * kc + 2 * x], s[8 * kc + 2 * x + 1]);
        }
        fence_regs(dv);
        wgmma_fence();
        const Desc dO(doStep, STEP_PANEL, 1024);
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
            Wgmma<T, D>::rs_nmajor(dv, p[kc], dO.at(kc * 16 * 128), 1);
        }
        wgmma_commit();
    }

    // dS^T = P^T (dP^T - Dsum) (1 - tanh^2) over s (P^T in, dS^T out; dcap: the capped logits' 1 - tanh^2 as fp16
    // pairs), packed into ds and stored to this thread's kv rows row0 and row0 + 8 of the DS_TILE in shared memory,
    // fenced for the async proxy (the dQ product reads it). XOR_ADDRESSES: each store's address from the thread's
    // first by one XOR (below); it won at D = 64 and was level at D = 128 (H100, 2026-12-06); the NSA backward, at 254
    // registers without setmaxnreg, spills with it (42-48 bytes at D = 128 with softcap)
    template <class DS_TILE, bool XOR_ADDRESSES, class STATS, int DC>
    static __device__ __forceinline__ void dsT(float (&s)[QS / 2], const float (&dp)[QS / 2], const __half2 (&dcap)[DC],
                                               STATS stats, int t, uint32_t (&ds)[QS / 16][4], T* sdS, int row0) {
#pragma unroll
        for (int n = 0; n < QS / 8; ++n) {
            const float2 dsum = stats.dsum2(n, t);
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
        // packed and stored while dV may still run: the caller's fence_frags(p) keeps P^T's registers from being
        // reused for dS^T until dV has read them. Addresses: in a one-panel tile (1024-byte aligned, as wgmma's swizzle
        // needs) byte row * 128 + (((col / 8) ^ (row & 7)) << 4) + 2 (col % 8) keeps the row in bits 7 and up, the
        // swizzled chunk in bits 4-6 and the thread's place in the chunk (4t) in bits 2-3, so each store's address is
        // this thread's first with the chunk's bits flipped, plus 1024 for the row 8 below (DS_TILE::elem, by bits).
        static_assert(!XOR_ADDRESSES || DS_TILE::COLS == 64, "one 64-column panel");
        const uint32_t first = smem_u32(sdS) + (uint32_t)row0 * 128 + (((uint32_t)row0 & 7) << 4) + 4 * t;
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
#pragma unroll
            for (int x = 0; x < 4; ++x) {
                ds[kc][x] = Elem<T>::pack(s[8 * kc + 2 * x], s[8 * kc + 2 * x + 1]);
                // A fragment register x: row + 8 (x & 1), n8 block 2kc + (x >> 1)
                if constexpr (XOR_ADDRESSES) {
                    st_shared_b32((first ^ ((uint32_t)(2 * kc + (x >> 1)) << 4)) + 1024 * (x & 1), ds[kc][x]);
                } else {
                    *reinterpret_cast<uint32_t*>(sdS + DS_TILE::elem(row0 + 8 * (x & 1), 16 * kc + 8 * (x >> 1) + 2 * t)) =
                        ds[kc][x];
                }
            }
        }
        fence_proxy_async();
    }

    // dK += dS^T Q issued as one commit group
    static __device__ __forceinline__ void issueDk(float (&dk)[D / 2], const uint32_t (&ds)[QS / 16][4], uint32_t qStep) {
        fence_regs(dk);
        const Desc q(qStep, STEP_PANEL, 1024);
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
            Wgmma<T, D>::rs_nmajor(dk, ds[kc], q.at(kc * 16 * 128), 1);
        }
        wgmma_commit();
    }
};

// One compute warpgroup's share of the backward: the constants, this thread's place, and one q step (the step's
// inputs arrive and are released as the caller's callbacks say: attention_bwd_wgmma_ws).
template <typename T, int D, bool CAPPED>
struct BwdWg {
    static constexpr int BQ = 128;
    static constexpr int BKV = 128;
    static constexpr int QS = 64;  // q rows per step
    static constexpr int SUBS = BQ / QS;
    static constexpr int WORDS = BQ / 32;
    static constexpr int SR = QS / 2;  // score accumulators per thread: 64 kv x 64 q per warpgroup
    static constexpr int OR = D / 2;   // dK and dV accumulators per thread: 64 kv x D per warpgroup
    static constexpr uint32_t KV_PANEL = BKV * 128;   // bytes of one 64-column panel of K or V
    static constexpr uint32_t STEP_PANEL = QS * 128;  // bytes of one 64-column panel of a Q or dO step
    static constexpr uint32_t STEP_BYTES = QS * D * 2;
    using KvTile = Sw128<BKV, D>;
    using DsTile = Sw128<BKV, QS>;
    using Parts = BwdStepParts<T, D, CAPPED>;

    int wg, t, row0, qRow0;  // row0: this thread's first kv row in the tile (the second is + 8); qRow0: its first
                             // q row of a dQ product
    uint32_t aK;             // K (all 128 rows)
    float sl2, capIn, softcap;
    const int* qIdx;
    const int* maskIdx;
    const uint32_t* bitsT;

    // thread: 0-255 over the two compute warpgroups
    __device__ __forceinline__ void seat(int thread, const T* sK, const int* qIdx_, const int* maskIdx_,
                                         const uint32_t* bitsT_, float scale,
                                         float softcap_) {
        // D = 64: broadcast from lane 0, so that the compiler knows the warpgroup index is warp-uniform and the addresses
        // and descriptors made from it can stay on the uniform datapath (CUTLASS's canonical_warp_group_idx); at
        // D = 128 the same lost 1-3% (H100, 2026-12-06)
        wg = D == 64 ? __shfl_sync(0xffffffffu, thread >> 7, 0) : thread >> 7;
        const int lane = thread & 31;
        t = lane & 3;
        row0 = wg * 64 + ((thread >> 5) & 3) * 16 + (lane >> 2);
        qRow0 = row0 - wg * 64;
        aK = smem_u32(sK);
        sl2 = CAPPED ? LOG2E : scale * LOG2E;
        capIn = CAPPED ? scale / softcap_ : 0.f;
        softcap = softcap_;
        qIdx = qIdx_;
        maskIdx = maskIdx_;
        bitsT = bitsT_;
    }

    // acc = A B^T, A = 64 rows of K or V, B = a Q or dO step, both K-major: a k16 step moves 32 bytes inside a
    // 64-column panel, then on to the next panel
    static __device__ __forceinline__ void issueAbt(float (&acc)[SR], uint32_t a, uint32_t b) {
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t inPanel = (kc & 3) * 32;
            Wgmma<T, 64>::ss(acc, sw128_desc(a + (kc >> 2) * KV_PANEL + inPanel, 16, 1024),
                             sw128_desc(b + (kc >> 2) * STEP_PANEL + inPanel, 16, 1024), kc > 0 ? 1 : 0);
        }
    }

    // The q step at `cur` of column walk `cols`: dK and dV accumulate this warpgroup's share. qStep and doStep are
    // the step's Q and dO tiles, stats its LSE and Dsum (SharedRowStats or WarpRowStats), sdS the dS^T tile this
    // step writes. shareDs() runs once this thread's dS^T rows are written (and fenced for wgmma): it must return
    // when both warpgroups' are; sinkDq(dq, q0, h) takes this thread's dQ product (storeDq's layout) for q rows
    // [q0, q0 + QS) of head h while dK += dS^T Q may still run; release() then runs once every read of the step's
    // Q, dO, LSE and Dsum is done.
    template <class STATS, class SHARE_DS, class RELEASE, class SINK_DQ, class KV = NoKvFrags>
    __device__ __forceinline__ void step(float (&dk)[OR], float (&dv)[OR], const BwdColumns& cols, const BwdCursor& cur,
                                         uint32_t qStep, uint32_t doStep, STATS stats, T* sdS,
                                         SHARE_DS shareDs, RELEASE release, SINK_DQ sinkDq, const KV& kv = {}) const {
        const int h = cols.hkv * cols.group + cur.hi;
        const int q0 = qIdx[cur.e] * BQ + cur.sub * QS;
        const bool partial = cur.e - cur.first < cur.partials;
        // this warpgroup's 64 kv rows of K and V, the A operands of S^T and dP^T (K-major)
        const uint32_t aKw = aK + wg * 64 * 128;
        const uint32_t aVw = aK + BKV * D * 2 + wg * 64 * 128;

        // S^T = K Q^T and dP^T = V dO^T, one commit group each
        float s[SR];
        float dp[SR];
        wgmma_fence();
        if constexpr (KV::IN_REGS) {
            static_assert(D == 64, "K and V fragments in registers at D = 64");
            const typename Parts::Desc dq(qStep, 16, 1024);
            const typename Parts::Desc ddo(doStep, 16, 1024);
#pragma unroll
            for (int kc = 0; kc < D / 16; ++kc) {
                Wgmma<T, 64>::rs(s, kv.k[kc], dq.at(kc * 32), kc > 0 ? 1 : 0);
            }
            wgmma_commit();
#pragma unroll
            for (int kc = 0; kc < D / 16; ++kc) {
                Wgmma<T, 64>::rs(dp, kv.v[kc], ddo.at(kc * 32), kc > 0 ? 1 : 0);
            }
            wgmma_commit();
        } else {
            issueAbt(s, aKw, qStep);
            wgmma_commit();
            issueAbt(dp, aVw, doStep);
            wgmma_commit();
        }
        stats.prepare();
        wgmma_wait<1>();
        fence_regs(s);

        // P^T = exp(logits - LSE); rows that attend nothing (LSE = -inf) give 0; PARTIAL tiles' token mask after
        __half2 dcap[CAPPED ? SR / 2 : 1];
        Parts::pt(s, dcap, stats, t, sl2, capIn, softcap, [](int) { return [](int, float p) { return p; }; });
        if (partial) mask_pt<BKV, WORDS>(s, bitsT, maskIdx[cur.e], row0, cur.sub * (QS / 32), t);

        // dV += P^T dO
        uint32_t p[QS / 16][4];
        Parts::issueDv(dv, p, s, doStep);
        wgmma_wait<1>();  // dP^T has landed; dV may still run
        fence_regs(dp);

        uint32_t ds[QS / 16][4];
        Parts::template dsT<DsTile, D == 64>(s, dp, dcap, stats, t, ds, sdS, row0);
        shareDs();  // both warpgroups' dS^T rows are in shared memory

        // dQ += dS K before dK += dS^T Q, so that taking dQ (sinkDq) overlaps dK.
        // dQ: dS^T read MN-major (q contiguous), K read N-major; k16 steps are 16 kv rows (2048 bytes).
        // D = 128: warpgroup wg makes dQ columns [64 wg, 64 wg + 64) over all 128 kv rows (K's column panel wg);
        // D = 64: warpgroup wg makes all 64 columns over its own 64 kv rows, and both add theirs.
        constexpr int DQ_STEPS = D == 128 ? BKV / 16 : BKV / 32;
        const uint32_t kvFirst = D == 128 ? 0u : (uint32_t)wg * 64 * 128;
        const uint32_t kPanel = D == 128 ? (uint32_t)wg * KV_PANEL : 0u;
        const uint32_t adS = smem_u32(sdS);
        float dq[32];
        wgmma_fence();
        const typename Parts::Desc dS(adS + kvFirst, 64 * 128, 1024);
        const typename Parts::Desc k(aK + kPanel + kvFirst, KV_PANEL, 1024);
#pragma unroll
        for (int kc = 0; kc < DQ_STEPS; ++kc) {
            WgmmaSs64<T>::template run<1, 1>(dq, dS.at(kc * 16 * 128), k.at(kc * 16 * 128), kc > 0 ? 1 : 0);
        }
        wgmma_commit();
        // dK += dS^T Q, Q read N-major like dO
        Parts::issueDk(dk, ds, qStep);
        wgmma_wait<1>();  // dV and dQ have landed; dK may still run
        fence_regs(dv);
        fence_frags(p);
        fence_regs(dq);
        sinkDq(dq, q0, h);
        wgmma_wait<0>();
        fence_regs(dk);
        fence_frags(ds);
        release();
    }

    // This thread's dQ product (accumulator i: q row qRow0 + 8 ((i / 2) % 2), column 8 (i / 4) + 2t + i % 2 of the
    // warpgroup's 64 columns) into the step's fp32 dQ tile in shared memory, rows in order so that whole rows go to
    // global memory in one bulk reduce-add: at D = 128 one QS x 128 tile (warpgroup wg's columns [64 wg, 64 wg + 64)),
    // at D = 64 one QS x 64 tile per warpgroup (each covers its own 64 kv rows). Inside a row the columns are in the
    // order the permuted dQ layout gives (attention_bwd.cu; bwd_dq_perm_* restores them): a thread's four values of a row in
    // each 16-column group (n8 blocks 2kp and 2kp + 1) are one 16-byte store, and odd rows swap the groups of each
    // pair, so the two rows of a quarter-warp (rows are 256 or 512 bytes apart, the same banks) fill opposite halves
    // of the 128 banks: 8 stores, no shuffles (row-major columns took 16 shuffles and the selects around them).
    __device__ __forceinline__ void storeDq(const float (&dq)[32], float* sDq) const {
        store_dq_perm<64, D == 64>(sDq + (D == 128 ? wg * 64 : wg * QS * 64), D, dq, qRow0, t);
    }

    // a part's dK = scale * acc and dV = acc into its fp32 slot (two BKV x D tiles, row-major)
    __device__ __forceinline__ void storePart(const float (&dk)[OR], const float (&dv)[OR], float* slot,
                                              float scale) const {
        float* pv = slot + BKV * D;
#pragma unroll
        for (int n = 0; n < D / 8; ++n) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int at = (row0 + 8 * r) * D + n * 8 + 2 * t;
                *reinterpret_cast<float2*>(slot + at) = make_float2(dk[4 * n + 2 * r] * scale, dk[4 * n + 2 * r + 1] * scale);
                *reinterpret_cast<float2*>(pv + at) = make_float2(dv[4 * n + 2 * r], dv[4 * n + 2 * r + 1]);
            }
        }
    }

    // dK = scale * acc and dV = acc of this thread's rows of kv tile kv0 straight from the registers (kvHead: the kv
    // head's offset), 8 bytes a lane (store_pairs8), rows past Skv skipped: no shared memory, so the next column's K and
    // V may land in theirs meanwhile
    __device__ __forceinline__ void storeDkDvRows(const float (&dk)[OR], const float (&dv)[OR], T* dK, T* dV,
                                                  size_t kvHead, int kv0, int Skv, float scale) const {
        const bool odd = t & 1;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int kv = kv0 + row0 + 8 * r;
            const bool ok = kv < Skv;
            const size_t at = kvHead + (size_t)(ok ? kv : 0) * D + 2 * (t & ~1);
#pragma unroll
            for (int n = 0; n < D / 8; n += 2) {
                store_pairs8(dK + at, n, Elem<T>::pack(dk[4 * n + 2 * r] * scale, dk[4 * n + 2 * r + 1] * scale),
                             Elem<T>::pack(dk[4 * n + 4 + 2 * r] * scale, dk[4 * n + 4 + 2 * r + 1] * scale), odd, ok);
                store_pairs8(dV + at, n, Elem<T>::pack(dv[4 * n + 2 * r], dv[4 * n + 2 * r + 1]),
                             Elem<T>::pack(dv[4 * n + 4 + 2 * r], dv[4 * n + 4 + 2 * r + 1]), odd, ok);
            }
        }
    }
};

#endif

// A column of the persistent backward's work order as its CTA walks it: the work-order slot, its launch entry
// (order[slot]: an item, or ~part of a split one) and its q steps (BwdColumns::steps, a chain of table loads).
struct ColumnRef {
    int slot, entry, steps;
};

// Warp-specialised and persistent: a grid of at most one CTA per SM takes the `items` launch entries of the work
// order (heaviest first) from a queue (next_work_item), so that a column's start and end overlap its neighbours' work
// instead of idling the SM between CTAs. Warpgroup 0 only loads and takes the columns, handing each to the compute
// warpgroups through a two-entry ring in shared memory (HandRing<ColumnRef>); warpgroups 1 and 2 each take 64 kv rows
// of the column (BwdWg::step). Per column the producer copies K and V (with the column's first step, once the
// consumers have released the previous column's on "kv empty", count 256: every compute thread arrives after the
// column's last step, phase k for the CTA's k-th column with steps; columns without steps neither load nor release
// them), then each q step's Q and dO into a ring of WBS_STAGES stages that runs on across columns; each producer thread
// arrives on the stage's "full" mbarrier (count 128) once its copies have landed and it has fenced them for the async
// proxy (while its next step's copies are in flight; a column's last step is handed over before the next column is
// taken), and each compute warp arrives on its "empty" mbarrier (count 8) once the step's wgmmas and reads are done.
// The CTA's step g (counted over its columns) uses stage g % ST in phase g / ST (parity (g / ST) & 1). A column with
// no steps waits on nothing and loads nothing. The dS^T tile is double-buffered by step parity: one 256-thread named
// barrier per step publishes it (step g + 2 rewrites a buffer only after every compute thread has passed step g + 1's
// barrier, i.e. finished step g's dQ). At D = 64 a warpgroup's dQ reads only its own dS^T and K rows, so the barrier is
// the warpgroup's own (128 threads) and the two warpgroups drift apart, one's exp and dS^T running while the other's
// products use the tensor cores. LSE and Dsum do not go through the ring: each consumer warp loads a step's from
// global memory during the step before (WarpRowStats). dK and dV go from the registers to global memory
// (storeDkDvRows), so the next column's K and V load while they are written.
//
// dQ (issue 12; docs/kernel-notes.md): the consumers do not add dQ with atomics. Each step's dQ products go into one
// fp32 tile in shared memory (BwdWg::storeDq: 32 KB, QS rows of D, or two QS x 64 tiles at D = 64), each thread fencing
// its stores for the async proxy, and one thread adds the tile to the accumulator with one bulk reduce-add (a tile's
// rows are contiguous in dQacc): the order of CUTLASS's TMA-store epilogues (stores, fence.proxy.async, a CTA-scope
// release/acquire, one thread issues). At D = 128 each warp counts itself in (last_warp_in, an acquire-release
// atomic) and lane 0 of the tile's last warp issues the add at once, so the copy has a whole step to read the tile;
// issued at the next step's dS^T barrier (as first built) it had only the dQ product's time, and the wait for it was
// 10% of the warps' stall samples on causal 8K (Nsight Compute, sixth session). At D = 64 the warpgroup's first
// thread still issues it after the next barrier of the column (the other order lost 6-8% there), and a column's last
// tile after the warpgroup's barrier at its end. Before the next step stores its tile, the issuing thread waits until
// the copy has read the old one and arrives on the "dQ empty" mbarrier (count 1); the others wait for that phase (step
// g + 1 waits for phase g, parity g & 1). Every tile goes this way, a split part's last one too (only its dK and dV go
// to the part's slot); every lane 0 waits for its adds to land before the CTA exits. The tile is written only with
// st.shared and read only by the bulk copy, so racecheck has no ordinary load to pair with it.
template <typename T, int D, bool CAPPED>
__device__ __forceinline__ void attention_bwd_wgmma_ws(SAW_BWD_PARAMS(T), int items, int* work) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using Wg = BwdWg<T, D, CAPPED>;
    constexpr int BKV = Wg::BKV;
    constexpr int QS = Wg::QS;
    constexpr int ST = WBS_STAGES;
    constexpr int PRODUCERS = WBS_THREADS - WB_THREADS;
    constexpr int CONSUMER_WARPS = WB_THREADS / 32;
    constexpr int DS_BAR = 1;       // named barrier of the 256 compute threads (0 is __syncthreads)
    constexpr int PRODUCER_BAR = 5;  // the producer threads' hand-over of a column from thread 0
    // D = 64: a warpgroup's dQ reads only its own dS^T rows and K rows and goes to its own tile, so each warpgroup
    // meets only itself each step (named barrier 2 + wg, its own issuer and "dQ empty" mbarrier) and the two drift
    // apart; D = 128: dQ needs both halves of dS^T, one barrier and one issuer for the two
    constexpr bool OWN_DQ = D == 64;
    // registers (multiples of 8; 128 P + 256 C within the launch's 384 x 168 = 64,512): the consumers fit 232
    // without spills except at D = 128 with softcap (the 1 - tanh^2 factors), which takes 240 and leaves the
    // producer 24, where it spills 48 bytes (ptxas -v; the consumers alone do not spill at 240)
    constexpr bool WIDE = D == 128 && CAPPED;
    constexpr int PRODUCER_REGS = WIDE ? 24 : 40;
    constexpr int CONSUMER_REGS = WIDE ? 240 : 232;

    extern __shared__ unsigned char smemRaw[];
    const uint32_t rawAddr = smem_u32(smemRaw);
    T* sK = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    T* sV = sK + BKV * D;        // right after K: BwdWg::step finds V there
    T* sQ = sV + BKV * D;        // ST stages of QS x D
    T* sdO = sQ + ST * QS * D;   // ST stages of QS x D
    T* sdS = sdO + ST * QS * D;  // 2 buffers of BKV x QS, dS transposed
    // QS x 128 fp32: one QS x 128 dQ tile at D = 128, one QS x 64 tile per warpgroup at D = 64
    float* sDq = reinterpret_cast<float*>(sdS + 2 * BKV * QS);
    uint64_t* full = reinterpret_cast<uint64_t*>(sDq + QS * 128);
    uint64_t* empty = full + ST;
    uint64_t* dqEmpty = empty + ST;  // one per warpgroup (D = 64), or dqEmpty[0] for both (D = 128)
    uint32_t* dqStored = reinterpret_cast<uint32_t*>(dqEmpty + 2);  // warps that stored their share, the same way
    uint64_t* kvEmpty = reinterpret_cast<uint64_t*>(dqStored + 2);  // K and V read for the last time in a column
    HandRing<ColumnRef> columns;
    columns.place(kvEmpty + 1);
    if (threadIdx.x == 0) {
        for (int st = 0; st < ST; ++st) {
            mbar_init(full + st, PRODUCERS);
            mbar_init(empty + st, CONSUMER_WARPS);
        }
        mbar_init(dqEmpty, 1);
        mbar_init(dqEmpty + 1, 1);
        dqStored[0] = 0;
        dqStored[1] = 0;
        mbar_init(kvEmpty, WB_THREADS);
        columns.init(WB_THREADS);
        mbar_init_fence();
    }
    __syncthreads();  // the last CTA-wide barrier: the producer leaves early

    auto bind = [&](int entry) {
        return BwdColumns::of(entry, parts, variantOf, colPtr, colPartial, H, Hkv, nkv);
    };
    if (threadIdx.x < PRODUCERS) {
        regs_dealloc<PRODUCER_REGS>();
        const int pt = threadIdx.x;
        // Each thread hands a stage over once its copies have landed, with a proxy fence before the release-arrive, so
        // that the consumers' wgmma (the async proxy) may read what these cp.async wrote without a fence of their own
        // (a consumer's fence.proxy.async also waits for the bulk dQ add it may have in flight). The copies of step g
        // are in flight while those of step g - 1 are waited for.
        int loaded = 0;  // steps loaded by this CTA (step g: stage g % ST, round g / ST)
        int kvLoads = 0;  // columns with steps whose K and V this CTA loaded (phase k of "kv empty": the k-th's release)
        for (int j = 0;; ++j) {
            // thread 0 takes the column and counts its steps; the named barrier hands it to the other producers (and
            // keeps thread 0 from overwriting entry j % 2 before they have read it)
            if (pt == 0) {
                const int slot = next_work_item(work);
                ColumnRef c{slot, 0, 0};
                if (slot < items) {
                    c.entry = order[slot];
                    c.steps = bind(c.entry).steps(Wg::SUBS);
                }
                columns.hand(j, c);
            }
            named_sync(PRODUCER_BAR, PRODUCERS);
            const ColumnRef col = columns.entry[j & 1];
            if (col.slot >= items) break;
            if (col.steps == 0) continue;
            const BwdColumns cols = bind(col.entry);
            BwdCursor cur = cols.start();
            const int end = loaded + col.steps;
            // step `loaded`'s Q and dO into its stage, once step loaded - ST has released it
            auto produceStep = [&] {
                const int st = loaded % ST;
                if (loaded >= ST) mbar_wait(empty + st, (loaded / ST - 1) & 1);
                const size_t bh = (size_t)cols.b * H + cols.hkv * cols.group + cur.hi;
                const int q0 = qIdx[cur.e] * Wg::BQ + cur.sub * QS;
                produce_tile_sw128<QS, D, PRODUCERS>(sQ + st * QS * D, Q + bh * Sq * D, q0, Sq, pt);
                produce_tile_sw128<QS, D, PRODUCERS>(sdO + st * QS * D, dO + bh * Sq * D, q0, Sq, pt);
                cur = cols.next<Wg::SUBS>(cur);
                ++loaded;
            };
            // the column's first step, and K and V in the same group of copies once the previous column's are no
            // longer read (outside the step loop and four copies a turn: with all their addresses at once beside the
            // loop's state, the 40-register producer spilled)
            produceStep();
            if (kvLoads > 0) mbar_wait(kvEmpty, (kvLoads - 1) & 1);  // the previous such column no longer reads them
            ++kvLoads;
            const size_t kvHead = (size_t)(cols.b * Hkv + cols.hkv) * Skv * D;
            produce_tile_sw128<BKV, D, PRODUCERS, 4>(sK, K + kvHead, cols.kb * BKV, Skv, pt);
            produce_tile_sw128<BKV, D, PRODUCERS, 4>(sV, V + kvHead, cols.kb * BKV, Skv, pt);
            cp_async_commit();
            while (loaded < end) {
                produceStep();
                cp_async_commit();
                cp_async_wait<1>();
                fence_proxy_async();
                mbar_arrive(full + (loaded - 2) % ST);  // the step before this one
            }
            // the column's last step, before the next column is taken
            cp_async_wait<0>();
            fence_proxy_async();
            mbar_arrive(full + (loaded - 1) % ST);
        }
        if (pt == 0) work_items_done(work);
        return;
    }
    regs_alloc<CONSUMER_REGS>();
    const int ct = threadIdx.x - PRODUCERS;
    Wg wg;
    wg.seat(ct, sK, qIdx, maskIdx, bitsT, scale, softcap);
    const bool lane0 = (ct & 31) == 0;
    const uint32_t aQ = smem_u32(sQ);
    const uint32_t adO = smem_u32(sdO);

    // a step's dQ tile goes to the accumulator by one bulk reduce-add. D = 128: lane 0 of the warp that stores its
    // share last issues it at once; that thread then owns the tile until the bulk copy has read it, which it waits
    // for before the next step's tile is stored (a whole step later). D = 64 (AT_BARRIER): the warpgroup's first
    // thread issues it after the warpgroup's next dS^T barrier
    constexpr uint32_t TILE_WARPS = OWN_DQ ? CONSUMER_WARPS / 2 : CONSUMER_WARPS;
    uint64_t* myDqEmpty = dqEmpty + (OWN_DQ ? wg.wg : 0);
    uint32_t* myDqStored = dqStored + (OWN_DQ ? wg.wg : 0);
    float* myDqTile = sDq + (OWN_DQ ? wg.wg * QS * D : 0);
    bool issuedTile = false;  // this thread added the step before's tile
    int tileQ0 = 0;             // the step's q rows [tileQ0, tileQ0 + QS) of (batch, head) row tileBh
    int tileBh = 0;
    auto addTile = [&] {
        const int rows = min(QS, Sq - tileQ0);
        if (rows > 0) {
            bulk_reduce_add_f32(dQacc + ((size_t)tileBh * Sq + tileQ0) * D, myDqTile, (uint32_t)rows * D * 4);
        }
        bulk_commit();
    };
    // D = 64: each warpgroup's first thread adds the warpgroup's tile after its next dS^T barrier instead: the
    // last-warp add lost 6-8% there (H200, sixth session), where a step is half as long and the add had less to hide
    constexpr bool AT_BARRIER = OWN_DQ;
    const bool firstOfWg = (ct & 127) == 0;
    using Frags = typename KvFragsFor<D>::type;
    Frags frags;
    int done = 0;  // steps this CTA has computed (step g: stage g % ST, phase parity (g / ST) & 1)
    for (int j = 0;; ++j) {
        const ColumnRef col = columns.template take<D == 64>(j);
        if (col.slot >= items) break;
        const BwdColumns cols = bind(col.entry);
        float dk[Wg::OR];
        float dv[Wg::OR];
#pragma unroll
        for (int i = 0; i < Wg::OR; ++i) {
            dk[i] = 0.f;
            dv[i] = 0.f;
        }
        BwdCursor cur = cols.start();
        // a step's LSE and Dsum, loaded once the step before has stored its dQ tile (4 registers per thread), so
        // their latency hides behind the barrier wait and the S^T and dP^T products
        auto loadStats = [&](WarpRowStats& rs, const BwdCursor& c) {
            const size_t bh = (size_t)cols.b * H + cols.hkv * cols.group + c.hi;
            rs.load(LSE, Dsum, bh, qIdx[c.e] * Wg::BQ + c.sub * QS, Sq, ct & 31);
        };
        WarpRowStats stats;
        if (col.steps > 0) loadStats(stats, cur);
        // D = 64: this warp's 16 rows of K and V as wgmma A fragments, once K and V have landed (with the column's
        // first step)
        if constexpr (Frags::IN_REGS) {
            if (col.steps > 0) {
                mbar_wait(full + done % ST, (done / ST) & 1);
                const int lane = ct & 31;
                const int row = wg.wg * 64 + ((ct >> 5) & 3) * 16 + (lane & 15);
#pragma unroll
                for (int kc = 0; kc < D / 16; ++kc) {
                    const int at = Wg::KvTile::elem(row, 16 * kc + 8 * (lane >> 4));
                    ldmatrix_x4(frags.k[kc], smem_u32(sK + at));
                    ldmatrix_x4(frags.v[kc], smem_u32(sV + at));
                }
            }
        }
        const int first = done;
        for (const int end = done + col.steps; done < end; ++done) {
            const int st = done % ST;
            mbar_wait(full + st, (done / ST) & 1);  // the producer fenced its copies for wgmma before arriving
            uint64_t* emptySt = empty + st;
            wg.step(dk, dv, cols, cur, aQ + st * Wg::STEP_BYTES, adO + st * Wg::STEP_BYTES, stats,
                    sdS + (done & 1) * BKV * QS,
                    [&] {
                        if (OWN_DQ) {
                            named_sync(2 + wg.wg, WB_THREADS / 2);
                        } else {
                            named_sync(DS_BAR, WB_THREADS);
                        }
                        if (AT_BARRIER && firstOfWg && done > first) addTile();
                    },
                    [=] {
                        __syncwarp();
                        if (lane0) mbar_arrive(emptySt);
                    },
                    [&](const float (&dq)[32], int q0, int h) {
                        if (done > 0) {
                            if (issuedTile) {
                                bulk_wait_read<0>();
                                mbar_arrive(myDqEmpty);
                            }
                            mbar_wait(myDqEmpty, (done - 1) & 1);  // step done - 1's tile has been read
                        }
                        wg.storeDq(dq, sDq);
                        fence_proxy_async();  // these stores before the bulk copy's reads
                        tileQ0 = q0;
                        tileBh = cols.b * H + h;
                        if (!AT_BARRIER) {
                            issuedTile = last_warp_in(myDqStored, TILE_WARPS, lane0);
                            if (issuedTile) addTile();
                        }
                    },
                    frags);
            cur = cols.next<Wg::SUBS>(cur);
            if (done + 1 < end) loadStats(stats, cur);
            if (AT_BARRIER) issuedTile = firstOfWg;
        }
        if (col.steps > 0) {
            // every wgmma of the column has completed (step waits for its last), and at D = 64 the fragments were
            // loaded at its start: K and V are free for the next column's. Only columns with steps arrive, as only
            // they load K and V: a warpgroup that ran ahead through columns without steps would otherwise count
            // itself twice into one phase and release K and V while the other still reads them.
            mbar_arrive(kvEmpty);
            if (AT_BARRIER) {  // the column's last tile, once the warpgroup has stored it
                named_sync(2 + wg.wg, WB_THREADS / 2);
                if (firstOfWg) addTile();
            }
        }
        const int kv0 = cols.kb * BKV;
        if (cols.slot >= 0) {
            wg.storePart(dk, dv, dkvParts + (size_t)cols.slot * 2 * BKV * D, scale);
        } else {
            wg.storeDkDvRows(dk, dv, dK, dV, (size_t)(cols.b * Hkv + cols.hkv) * Skv * D, kv0, Skv, scale);
        }
    }
    if (lane0) bulk_wait<0>();  // every tile this thread added has landed before the CTA's shared memory goes
#else
    __trap();
#endif
}

}  // namespace saw

// One extern "C" entry point with the backward kernels' arguments, calling FN<T, D, CAPPED> (THREADS per CTA): the
// head dim 256 backward's (attention_bwd_wgmma_d256.cu)
#define SAW_BWD_HOPPER(NAME, FN, THREADS, T, D, CAPPED)                                                        \
    extern "C" __global__ void __launch_bounds__(THREADS, 1) NAME(                                             \
        const T* Q, const T* K, const T* V, const T* dO, const float* LSE, const float* Dsum, float* dQacc,    \
        T* dK, T* dV, float* dkvParts, const int* order, const int* parts, const int* variantOf, const int* colPtr, const int* colPartial,        \
        const int* qIdx, const int* maskIdx, const uint32_t* bitsT, int H, int Hkv, int Sq, int Skv, int nkv,   \
        float scale, float softcap) {                                                                           \
        FN<T, D, CAPPED>(Q, K, V, dO, LSE, Dsum, dQacc, dK, dV, dkvParts, order, parts, variantOf, colPtr, colPartial, qIdx,    \
                         maskIdx, bitsT, H, Hkv, Sq, Skv, nkv, scale, softcap);                                 \
    }
// the persistent warp-specialised backward: the backward's parameters, then the launch entries of the work order and
// the work queue's two counters (the grid is at most one CTA per SM)
#define SAW_BWD_WGMMA_WS(NAME, T, D, CAPPED)                                                                   \
    extern "C" __global__ void __launch_bounds__(saw::WBS_THREADS, 1) NAME(                                     \
        const T* Q, const T* K, const T* V, const T* dO, const float* LSE, const float* Dsum, float* dQacc,    \
        T* dK, T* dV, float* dkvParts, const int* order, const int* parts, const int* variantOf, const int* colPtr, \
        const int* colPartial, const int* qIdx, const int* maskIdx, const uint32_t* bitsT, int H, int Hkv, int Sq, \
        int Skv, int nkv, float scale, float softcap, int items, int* work) {                                  \
        saw::attention_bwd_wgmma_ws<T, D, CAPPED>(Q, K, V, dO, LSE, Dsum, dQacc, dK, dV, dkvParts, order, parts,   \
                                                  variantOf, colPtr, colPartial, qIdx, maskIdx, bitsT, H, Hkv, Sq, \
                                                  Skv, nkv, scale, softcap, items, work);                        \
    }

SAW_BWD_WGMMA_WS(bwd_wgmmaws_bf16_d64_q128_kv128, __nv_bfloat16, 64, false)
SAW_BWD_WGMMA_WS(bwd_wgmmaws_bf16_d128_q128_kv128, __nv_bfloat16, 128, false)
SAW_BWD_WGMMA_WS(bwd_wgmmaws_fp16_d64_q128_kv128, __half, 64, false)
SAW_BWD_WGMMA_WS(bwd_wgmmaws_fp16_d128_q128_kv128, __half, 128, false)
SAW_BWD_WGMMA_WS(bwd_wgmmaws_bf16_d64_q128_kv128_softcap, __nv_bfloat16, 64, true)
SAW_BWD_WGMMA_WS(bwd_wgmmaws_bf16_d128_q128_kv128_softcap, __nv_bfloat16, 128, true)
SAW_BWD_WGMMA_WS(bwd_wgmmaws_fp16_d64_q128_kv128_softcap, __half, 64, true)
SAW_BWD_WGMMA_WS(bwd_wgmmaws_fp16_d128_q128_kv128_softcap, __half, 128, true)

