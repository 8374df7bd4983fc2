// Block-sparse attention backward at head dim 256 for Hopper (sm_90a): the same arguments, column tables, launch
// order and outputs as attention_bwd.cu's bwd_* kernels (a launch entry may be a part of a split column: its fp32 dK
// and dV go to its slot of dkvParts), on the 64x64 layout, with warpgroup MMA. Included after attention_bwd.cu
// (SAW_BWD_PARAMS, BwdColumns, add4_pair, load_row_stats) and attention_bwd_wgmma.cu (mask_pt, SAW_BWD_HOPPER).
//
// A 64-row kv tile's dK and dV at D = 256 are 2 x 64 x 256 fp32: 256 registers per thread of one warpgroup, past
// the 255 a thread has, and wgmma's M is 64, so the tile cannot shrink. So one CTA per (kv tile, kv head, batch)
// runs two warpgroups on the same 64 kv rows, warpgroup w owning columns [128 w, 128 w + 128) of dK, dV and dQ (64 + 64
// registers). The reductions over D are not repeated (the mma.sync D = 256 backward computes S and dP twice):
// warpgroup 0 computes S^T = K Q^T, warpgroup 1 dP^T = V dO^T, and each hands half of its product to the other.
// Per q step of 64 rows (one q tile):
//   WG0: S^T (16 m64n64k16 SS); WG1: dP^T (16 m64n64k16 SS); meanwhile the step before's dQ tile is read
//   both: q columns [32 w, 32 w + 32) of the other's product into sX (fp32, [value][thread]: both accumulators map a
//         thread to the same (kv, q) elements)
//   barrier X
//   both, on their 32 q columns: P^T = exp(logits - LSE) (softcap, bit tile) and dS^T = P^T (dP^T - Dsum)
//         (1 - tanh^2) from the fp32 P^T, as T into sP and sdS
//   barrier 1
//   both: dV[:, own] += P^T dO[:, own], dK[:, own] += dS^T Q[:, own], dQ[:, own] = dS K[:, own] (m64n128k16 SS);
//         the thread that added the dQ tile in the other stage waits for its read and refills that stage with the
//         next step's Q and dO by the tensor memory accelerator (behind its dV); WG1 loads the next LSE and Dsum
//   barrier (the step's stage is no longer read), then dQ as fp32 over the stage, added by one bulk reduce-add that
//   the last warp to store its rows issues (addTile)
// No atomics, no producer warpgroup (two stages of Q and dO already take 128 KB of the 227); four CTA barriers a
// step, and each warpgroup waits for all of its wgmmas before the next, so one copy of sP, sdS and sX suffices.
//
// Shared memory (128-byte swizzle, 1024-aligned panels): K, V 64 x 256 (64 KB), two stages of Q and dO 64 x 256
// (128 KB; a stage's Q and dO steps are adjacent, 64 KB, which a dQ tile then fills), sP and sdS 64 x 64 (16 KB), sX
// 64 x 64 fp32 (16 KB), two stages of LSE and Dsum (1 KB), an mbarrier per stage and a counter, 1 KB of alignment
// slack: 231,444 bytes (the opt-in limit is 232,448). One CTA of 256 threads per SM. The host passes tensor maps of Q
// and dO (GpuBackend).
//
// Built only in the sm_90a pass (__CUDA_ARCH_FEAT_SM90_ALL); the sm_80 image holds entry points that trap, and the
// host launches these only on compute capability 9.0 (the default there; -Dsaw.kernel.bwd256=mma keeps the mma.sync
// backward: KernelCatalog.WideBackward).

#include "pipeline.cuh"
#include "wgmma.cuh"

namespace saw {

constexpr int WB256_THREADS = 256;

template <typename T, int D, bool CAPPED>
__device__ __forceinline__ void attention_bwd_wgmma_d256(SAW_BWD_PARAMS(T), const TensorMap* qMap, const TensorMap* doMap) {
    static_assert(D == 256, "the head dim 256 Hopper backward");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr int BQ = 64;
    constexpr int BKV = 64;
    constexpr int QS = BQ;     // one step per q tile
    constexpr int HALF = D / 2;  // columns of dK, dV and dQ a warpgroup owns
    constexpr int SR = QS / 2;   // S^T / dP^T accumulators per thread (64 kv x 64 q)
    constexpr int OR = HALF / 2; // dK, dV and dQ accumulators per thread (64 x 128)
    constexpr int WORDS = BQ / 32;
    constexpr uint32_t PANEL = 64 * 128;         // bytes of one 64-column panel of a 64-row tile
    constexpr uint32_t TILE_BYTES = 64 * D * 2;  // K, V, a Q or dO step
    using Tile = Sw128<64, D>;
    using Sq64 = Sw128<64, 64>;  // P^T and dS^T: kv rows, q columns

    extern __shared__ unsigned char smemRaw[];
    const uint32_t rawAddr = smem_u32(smemRaw);
    T* sK = reinterpret_cast<T*>(smemRaw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
    T* sV = sK + BKV * D;
    T* sQ = sV + BKV * D;        // 2 stages, each a QS x D Q step and then a QS x D dO step (64 KB, see addTile)
    T* sP = sQ + 4 * QS * D;     // BKV x QS, P^T
    T* sdS = sP + BKV * QS;      // BKV x QS, dS^T
    float* sX = reinterpret_cast<float*>(sdS + BKV * QS);  // S^T and dP^T halves exchanged, SR x 128 ([value][thread])
    float* sLse = sX + SR * 128;                           // 2 stages of QS
    float* sDs = sLse + 2 * QS;                            // 2 stages of QS
    uint64_t* stepFull = reinterpret_cast<uint64_t*>(sDs + 2 * QS);  // per stage: its Q and dO step have landed
    uint32_t* tileStored = reinterpret_cast<uint32_t*>(stepFull + 2);   // warps that stored their rows of a dQ tile

    const int tid = threadIdx.x;
    const int wg = tid >> 7;
    const int wt = tid & 127;  // thread within its warpgroup
    const int lane = tid & 31;
    const int t = lane & 3;
    const int row0 = ((wt >> 5) & 3) * 16 + (lane >> 2);  // this thread's first accumulator row (+ 8: the second)
    const int c0 = wg * HALF;

    const BwdColumns cols = BwdColumns::of(order[blockIdx.x], parts, variantOf, colPtr, colPartial, H, Hkv, nkv);
    const int kv0 = cols.kb * BKV;
    BwdCursor cur = cols.start();
    const int steps = cols.steps(1);

    // a step's Q and dO into a stage, by one thread with the tensor memory accelerator (four 64-column boxes each, rows
    // past Sq read as zeros; the stage's barrier counts the bytes), and its LSE and Dsum, by warpgroup 1 (cp.async)
    auto loadTiles = [&](const BwdCursor& c, int stage) {
        const int bh = cols.b * H + cols.hkv * cols.group + c.hi;
        const int q0 = qIdx[c.e] * BQ;
        T* step = sQ + stage * 2 * QS * D;
        mbar_arrive_expect_tx(stepFull + stage, 2 * TILE_BYTES);
        tma_load_tile<QS, D>(step, qMap, q0, bh, stepFull + stage);
        tma_load_tile<QS, D>(step + QS * D, doMap, q0, bh, stepFull + stage);
    };
    auto loadStats = [&](const BwdCursor& c, int stage) {
        const size_t bh = (size_t)cols.b * H + cols.hkv * cols.group + c.hi;
        load_row_stats<QS, 128>(sLse + stage * QS, sDs + stage * QS, LSE, Dsum, bh, qIdx[c.e] * BQ, Sq, wt);
    };

    if (tid == 0) {
        mbar_init(stepFull, 1);      // phase j: the step 2 j of its stage has landed
        mbar_init(stepFull + 1, 1);  // phase j: step 2 j + 1
        *tileStored = 0;
        mbar_init_fence();
        if (steps > 0) {
            tma_prefetch(qMap);
            tma_prefetch(doMap);
            loadTiles(cur, 0);
        }
    }
    const size_t kvHead = (size_t)(cols.b * Hkv + cols.hkv) * Skv * D;
    load_tile_sw128<BKV, D, WB256_THREADS>(sK, K + kvHead, kv0, Skv, tid);
    load_tile_sw128<BKV, D, WB256_THREADS>(sV, V + kvHead, kv0, Skv, tid);
    if (steps > 0 && wg == 1) loadStats(cur, 0);
    cp_async_commit();

    const float sl2 = CAPPED ? LOG2E : scale * LOG2E;
    const float capIn = CAPPED ? scale / softcap : 0.f;
    const uint32_t aK = smem_u32(sK);
    const uint32_t aV = smem_u32(sV);
    const uint32_t aP = smem_u32(sP);
    const uint32_t adS = smem_u32(sdS);

    float dk[OR];
    float dv[OR];
#pragma unroll
    for (int i = 0; i < OR; ++i) {
        dk[i] = 0.f;
        dv[i] = 0.f;
    }

    // acc[:, own] += A B[:, own]: A (P^T or dS^T) K-major (16 q columns = 32 bytes per k16 step), B (a dO or Q step)
    // N-major (16 q rows = 2048 bytes per step, this warpgroup's two 64-column panels PANEL bytes apart)
    auto addKvQTimesStep = [&](float (&acc)[OR], uint32_t a, uint32_t step) {
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < QS / 16; ++kc) {
            WgmmaSs128<T>::template run<0, 1>(acc, sw128_desc(a + kc * 32, 16, 1024),
                                              sw128_desc(step + 2 * wg * PANEL + kc * 2048, PANEL, 1024), 1);
        }
        wgmma_commit();
    };

    // A step's dQ product goes to the accumulator by one bulk reduce-add, not atomics: once both warpgroups' products
    // of the step are done, they store dQ (64 x 256 fp32, rows of 1 KB in order, each row's columns in the permuted dQ
    // layout's order so that the 16-byte stores are conflict-free) over the step's stage (its Q and dO steps, 64
    // contiguous KB), and lane 0 of the last warp to store its rows (last_warp_in) adds the tile at once: a head's rows are
    // contiguous in dQacc. The copy reads while the next step's S^T and dP^T run; after barrier 1 its issuer waits for
    // the reads and refills that stage for the step after with the tensor memory accelerator. (Per-row copies of each
    // warpgroup's half, without the barrier before the stores, took one warp most of a step to issue: 128 bulk copies a
    // step, each its own issue.)
    const bool lane0 = lane == 0;
    bool addedTile = false;  // this thread added the last step's tile (lane 0 of the last warp to store its rows)
    auto dqTile = [&](int stage) { return reinterpret_cast<float*>(sQ + stage * 2 * QS * D); };
    auto addTile = [&](int stage, int q, int head) {
        const int rows = min(QS, Sq - q);
        if (rows > 0) {
            bulk_reduce_add_f32(dQacc + (((size_t)cols.b * H + head) * Sq + q) * D, dqTile(stage), (uint32_t)rows * D * 4);
        }
        bulk_commit();
    };

    cp_async_wait<0>();
    fence_proxy_async();
    for (int it = 0; it < steps; ++it) {
        const int stage = it & 1;
        const BwdCursor next = cols.next<1>(cur);
        // barrier 0: this step's LSE and Dsum are in (warpgroup 1 loaded them); step it - 1's dQ tile is stored and
        // fenced; every wgmma and shared read of step it - 1 is done, so sP and sX may be rewritten. Then the step's
        // Q and dO tiles: their barrier's phase it / 2
        __syncthreads();
        mbar_wait(stepFull + stage, (it >> 1) & 1);
        const uint32_t qStep = smem_u32(sQ) + stage * 2 * TILE_BYTES;
        const uint32_t doStep = qStep + TILE_BYTES;
        const float* tLse = sLse + stage * QS;
        const float* tDs = sDs + stage * QS;
        const int h = cols.hkv * cols.group + cur.hi;
        const int q0 = qIdx[cur.e] * BQ;
        const bool partial = cur.e - cur.first < cur.partials;

        // S^T = K Q^T (WG0) or dP^T = V dO^T (WG1): 64 kv x 64 q over all 256 columns, both operands K-major
        float s[SR];
        {
            const uint32_t a = wg == 0 ? aK : aV;
            const uint32_t b = wg == 0 ? qStep : doStep;
            wgmma_fence();
#pragma unroll
            for (int kc = 0; kc < D / 16; ++kc) {
                const uint32_t at = (kc >> 2) * PANEL + (kc & 3) * 32;
                Wgmma<T, 64>::ss(s, sw128_desc(a + at, 16, 1024), sw128_desc(b + at, 16, 1024), kc > 0 ? 1 : 0);
            }
            wgmma_commit();
            wgmma_wait<0>();
            fence_regs(s);
        }
        // Exchange halves: warpgroup w keeps q columns [32 w, 32 w + 32) (accumulators 16 w to 16 w + 15) of both S^T and
        // dP^T and hands the other half of its product to the other warpgroup, through sX in [value][thread] order
        // (thread i of both warpgroups holds the same (kv, q) elements)
        constexpr int HS = SR / 2;
#pragma unroll
        for (int j = 0; j < HS; ++j) sX[(wg == 0 ? j : HS + j) * 128 + wt] = wg == 0 ? s[HS + j] : s[j];
        __syncthreads();  // barrier X: both halves exchanged
        float z[HS];  // logits of this warpgroup's q columns
        float g[HS];  // dP^T of the same
#pragma unroll
        for (int j = 0; j < HS; ++j) {
            const float mine = wg == 0 ? s[j] : s[HS + j];
            const float theirs = sX[(wg == 0 ? HS + j : j) * 128 + wt];
            z[j] = wg == 0 ? mine : theirs;
            g[j] = wg == 0 ? theirs : mine;
        }
        uint32_t bits[2] = {~0u, ~0u};  // this thread's two kv rows' mask word over the warpgroup's 32 q columns
        if (partial) {
            const uint32_t* tileBits = bitsT + (size_t)maskIdx[cur.e] * BKV * WORDS + wg;
            bits[0] = __ldg(tileBits + row0 * WORDS);
            bits[1] = __ldg(tileBits + (row0 + 8) * WORDS);
        }
        // P^T = exp(logits - LSE) (rows that attend nothing, LSE = -inf, give 0), then dS^T = P^T (dP^T - Dsum)
        // (1 - tanh^2) from the fp32 P^T; both into the shared tiles as T (column 8 (n + 4 w) + 2t + x % 2, kv row
        // row0 + 8 (x / 2) for accumulator 4 n + x)
#pragma unroll
        for (int n = 0; n < HS / 4; ++n) {
            const int col = 8 * (n + 4 * wg) + 2 * t;
            const float2 lse = *reinterpret_cast<const float2*>(tLse + col);
            const float2 dsum = *reinterpret_cast<const float2*>(tDs + col);
            const float bias[2] = {lse.x == -INFINITY ? -INFINITY : -lse.x * LOG2E,
                                   lse.y == -INFINITY ? -INFINITY : -lse.y * LOG2E};
            float pr[4];
            float dsr[4];
#pragma unroll
            for (int x = 0; x < 4; ++x) {
                float v = z[4 * n + x];
                float dcap = 1.f;
                if constexpr (CAPPED) {
                    const float th = tanhf(v * capIn);
                    v = softcap * th;
                    dcap = 1.f - th * th;
                }
                float pv = exp2_approx(fmaf(v, sl2, bias[x & 1]));
                if (!((bits[x >> 1] >> ((8 * n + 2 * t + (x & 1)) & 31)) & 1u)) pv = 0.f;
                pr[x] = pv;
                dsr[x] = pv * (g[4 * n + x] - ((x & 1) ? dsum.y : dsum.x)) * dcap;
            }
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int at = Sq64::elem(row0 + 8 * r, col);
                *reinterpret_cast<uint32_t*>(sP + at) = Elem<T>::pack(pr[2 * r], pr[2 * r + 1]);
                *reinterpret_cast<uint32_t*>(sdS + at) = Elem<T>::pack(dsr[2 * r], dsr[2 * r + 1]);
            }
        }
        fence_proxy_async();  // sP's and sdS's stores before the wgmmas read them
        __syncthreads();  // barrier 1: P^T in sP, dS^T in sdS

        // dV[:, own] += P^T dO[:, own], dK[:, own] += dS^T Q[:, own], dQ[:, own] = dS K[:, own] (dS^T read MN-major: q
        // contiguous, 16 kv rows = 2048 bytes per k16 step; K N-major)
        addKvQTimesStep(dv, aP, doStep);
        // the next step, while dV runs, into the stage whose dQ tile the bulk copy has read by then: the thread that
        // added that tile waits for the read and issues the copies (thread 0 on step 0, when no tile was added; the
        // read waited before barrier 1 held both warpgroups there for 15% of the stall samples, H200 profile).
        // Warpgroup 1 loads the next LSE and Dsum, whose stage only step it - 1 read.
        if (it + 1 < steps && (it == 0 ? tid == 0 : addedTile)) {
            if (it > 0) bulk_wait_read<0>();
            loadTiles(next, stage ^ 1);
        }
        if (wg == 1 && it + 1 < steps) loadStats(next, stage ^ 1);
        cp_async_commit();
        addKvQTimesStep(dk, adS, qStep);
        float dq[OR];
        wgmma_fence();
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            WgmmaSs128<T>::template run<1, 1>(dq, sw128_desc(adS + kc * 2048, PANEL, 1024),
                                              sw128_desc(aK + 2 * wg * PANEL + kc * 2048, PANEL, 1024), kc > 0 ? 1 : 0);
        }
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(dv);
        fence_regs(dk);
        fence_regs(dq);
        __syncthreads();  // both warpgroups' products have read the stage (waiting for dV and dK alone before this
                          // barrier, with dQ still running, measured the same on the H200)

        // this warpgroup's columns [c0, c0 + 128) of the step's rows, in the permuted dQ layout's order
        store_dq_perm<HALF>(dqTile(stage) + c0, D, dq, row0, t);
        if (wg == 1) cp_async_wait<0>();  // the next step's LSE and Dsum
        fence_proxy_async();  // the dQ tile before the bulk copy reads it
        addedTile = last_warp_in(tileStored, 8, lane0);
        if (addedTile) addTile(stage, q0, h);
        cur = next;
    }

    // epilogue (the last dQ tile is on its way already): dK = scale * acc and dV = acc (accumulator i: kv row row0 + 8 ((i / 2) % 2),
    // column c0 + 8 (i / 4) + 2t + i % 2): a part's into its fp32 slot, else staged through K and V
    __syncthreads();
    if (cols.slot >= 0) {
        float* pk = dkvParts + (size_t)cols.slot * 2 * BKV * D;
        float* pv = pk + BKV * D;
#pragma unroll
        for (int n = 0; n < HALF / 8; ++n) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int at = (row0 + 8 * r) * D + c0 + 8 * n + 2 * t;
                *reinterpret_cast<float2*>(pk + at) = make_float2(dk[4 * n + 2 * r] * scale, dk[4 * n + 2 * r + 1] * scale);
                *reinterpret_cast<float2*>(pv + at) = make_float2(dv[4 * n + 2 * r], dv[4 * n + 2 * r + 1]);
            }
        }
    } else {
#pragma unroll
        for (int n = 0; n < HALF / 8; ++n) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int at = Tile::elem(row0 + 8 * r, c0 + 8 * n + 2 * t);
                *reinterpret_cast<uint32_t*>(sK + at) = Elem<T>::pack(dk[4 * n + 2 * r] * scale, dk[4 * n + 2 * r + 1] * scale);
                *reinterpret_cast<uint32_t*>(sV + at) = Elem<T>::pack(dv[4 * n + 2 * r], dv[4 * n + 2 * r + 1]);
            }
        }
        __syncthreads();
        store_staged_dkdv<Tile, WB256_THREADS>(sK, sV, dK, dV, kvHead, kv0, Skv, tid);
    }
    if (lane0) bulk_wait<0>();  // the dQ adds this thread issued have landed before the CTA's shared memory goes
#else
    __trap();  // wgmma needs sm_90a; the host never launches this elsewhere
#endif
}

}  // namespace saw

// the backward's parameters, then the tensor maps of Q and dO ([B * H][Sq][D], boxes of 64 x 64: GpuBackend)
#define SAW_BWD_WGMMA_D256(NAME, T, CAPPED)                                                                             \
    extern "C" __global__ void __launch_bounds__(saw::WB256_THREADS, 1) NAME(                                            \
        SAW_BWD_PARAMS(T), const __grid_constant__ saw::TensorMap qMap, const __grid_constant__ saw::TensorMap doMap) { \
        saw::attention_bwd_wgmma_d256<T, 256, CAPPED>(Q, K, V, dO, LSE, Dsum, dQacc, dK, dV, dkvParts, order, parts,      \
                                                      variantOf, colPtr, colPartial, qIdx, maskIdx, bitsT, H, Hkv, Sq,  \
                                                      Skv, nkv, scale, softcap, &qMap, &doMap);                          \
    }

SAW_BWD_WGMMA_D256(bwd_wgmma_bf16_d256_q64_kv64, __nv_bfloat16, false)
SAW_BWD_WGMMA_D256(bwd_wgmma_fp16_d256_q64_kv64, __half, false)
SAW_BWD_WGMMA_D256(bwd_wgmma_bf16_d256_q64_kv64_softcap, __nv_bfloat16, true)
SAW_BWD_WGMMA_D256(bwd_wgmma_fp16_d256_q64_kv64_softcap, __half, true)
