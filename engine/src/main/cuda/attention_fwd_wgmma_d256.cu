// Block-sparse attention forwards for Hopper (sm_90a) on 64x64 layouts: the same layout tables, outputs, launch
// order and empty-row convention as attention_fwd.cu, with warpgroup MMA. At D = 256 a 64-row warpgroup's O
// accumulator is 64 x 256 fp32 = 128 registers per thread, and a 128 x 256 K or V tile is 64 KB, so the D <= 128
// design (128 q rows, 128-row K/V tiles, three stages) does not fit: here a CTA owns one 64-row q tile (Q in shared
// memory once) and K/V tiles of 64 rows in Q64Shape's stages, loaded by a producer warpgroup (cp.async, each
// thread's copies arriving on the stage's mbarrier as they land, as in attention_fwd_wgmma_ws). At D = 64 and 128
// the same kernels run the 64x64 layout, whose tiles waste fewer pairs than 128x128 on short rows (packed short
// documents: 0.77 of the computed pairs are useful at 64x64 against 0.63 at 128x128).
//
// CONSUMERS = 1 (fwd_wgmmaws_*_q64_kv64): one consumer warpgroup with the intra-warpgroup overlap (S of tile i + 1
// and P V of tile i in flight during the softmax of tile i + 1). CONSUMERS = 2 (fwd_wgmmapp_*_q64_kv64): two consumer
// warpgroups take the row's kv tiles in turn (even, odd), each with its own online softmax over the same 64 q
// rows, so one's softmax runs while the other's products occupy the tensor cores; at the end warpgroup 1 hands its
// (m, l, O) to warpgroup 0 through the freed K/V stages, which merges them. At D = 256 the 128-row CTA below
// (FlashAttention-3's layout) runs the layout's mask compiled at 128x64.
//
// Built only in the sm_90a pass; the sm_80 image holds entry points that trap (the host never launches them there).
// Included after attention_fwd_wgmma.cu (WgRows, KvRing, ws_consume, SAW_FWD_HOPPER_CTAS).

#include "pipeline.cuh"
#include "wgmma.cuh"

namespace saw {

constexpr int W256_D = 256;
constexpr int W256_BQ = 64;
constexpr int W256_BKV = 64;

// The 64-row forward's K/V stages, CTAs per SM, and the registers setmaxnreg gives its producer and consumer warpgroups
// (0: no setmaxnreg, every thread keeps the launch's share).
// D = 256: Q + 3 x (K, V) = 224 KB, inside Hopper's 227 KB; two consumers split the 384 x 168 registers a CTA gets
// at launch as 128 x 56 + 256 x 224; one consumer keeps 256 x 255.
// D <= 128, two consumers: the same, with four stages (Q + 4 x (K, V) = 144 KB at D = 128). One consumer: two CTAs
// per SM, so one row's start (Q, first tile) and end (O) overlap the other CTA's products on rows of a few tiles;
// two stages (80 KB at D = 128, two CTAs inside 228 KB) and 256 x 128 registers split as 128 x 24 + 128 x 232.
template <int D, int CONSUMERS>
struct Q64Shape {
    static constexpr int STAGES = D == 256 ? 3 : CONSUMERS == 2 ? 4 : 2;
    static constexpr int CTAS = D < 256 && CONSUMERS == 1 ? 2 : 1;
    static constexpr int PRODUCER_REGS = CONSUMERS == 2 ? 56 : D < 256 ? 24 : 0;
    static constexpr int CONSUMER_REGS = CONSUMERS == 2 ? 224 : D < 256 ? 232 : 0;
};
// the 128-row CTA (attention_fwd_wgmma_d256_q128): Q 128 x 256 and two K/V stages = 192 KB. Each consumer warpgroup
// holds the first two of Q's four 64-column panels as A fragments (W256_WIDE_Q_FRAGS k16 steps, 32 registers a thread),
// so half of Q K^T's k16 steps read only K from shared memory (H200: faster in 25 of 36 round-and-row pairs, by about
// 1-2%; docs/kernel-notes.md, "Q in registers"). For those registers the producer, one thread issuing bulk tensor
// copies, runs at 24 and the consumers at 240 (128 x 24 + 256 x 240 is within the 384 x 168 a CTA gets at launch).
// ptxas: no spills without turns (wgmma-ws); with them (wgmma-pp) 28 bytes, four local accesses per kv tile.
constexpr int W256_WIDE_BQ = 128;
constexpr int W256_WIDE_STAGES = 2;
constexpr int W256_WIDE_PRODUCER_REGS = 24;
constexpr int W256_WIDE_CONSUMER_REGS = 240;
constexpr int W256_WIDE_Q_FRAGS = 8;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// m64n256k16 (O += P V at D = 256), the accumulator layout of wgmma.cuh's Wgmma
template <typename T> struct WgmmaN256;

template <> struct WgmmaN256<__nv_bfloat16> {
    // D (+)= A B, A from registers (the m16n8k16 A fragment of each warp's 16 rows), B from shared memory N-major
    static __device__ __forceinline__ void rs_nmajor(float (&d)[128], const uint32_t (&a)[4], uint64_t b, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, {%128,%129,%130,%131}, %132, p, 1, 1, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
    }
};

template <> struct WgmmaN256<__half> {
    // D (+)= A B, A from registers (the m16n8k16 A fragment of each warp's 16 rows), B from shared memory N-major
    static __device__ __forceinline__ void rs_nmajor(float (&d)[128], const uint32_t (&a)[4], uint64_t b, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, {%128,%129,%130,%131}, %132, p, 1, 1, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
    }
};

// One consumer warpgroup's view of a CTA: WgRows (attention_fwd_wgmma.cu) at BQ x 64 tiles, and the products. BQ = 64:
// every consumer warpgroup works on the CTA's 64 q rows; BQ = 128: warpgroup wg owns rows [64 wg, 64 wg + 64).
// Q_FRAGS > 0: the first Q_FRAGS k16 steps of Q K^T take this warpgroup's Q rows from registers (loadQFragments), so
// those steps read only K from shared memory.
template <typename T, int D_, int BQ_, int ST_, int Q_FRAGS = 0>
struct Kv64Cta : WgRows<T, D_, BQ_, W256_BKV, ST_> {
    using Rows = WgRows<T, D_, BQ_, W256_BKV, ST_>;
    using Rows::BQ;
    using Rows::BKV;
    using Rows::SR;
    using Rows::OR;
    using Rows::sQ;
    using Rows::sK;
    using Rows::sV;
    using Rows::rowInTile0;
    using Rows::t;
    static constexpr int D = D_;
    static constexpr int ST = ST_;
    static constexpr int KV_ELEMS = BKV * D;
    static_assert(BQ == 64 || BQ == 128, "one or two warpgroups' rows");
    static_assert(Q_FRAGS >= 0 && Q_FRAGS <= D_ / 16, "Q fragments: at most D / 16 k16 steps");

    int wg;  // the consumer warpgroup's 64 rows within the q tile (0 when BQ = 64)
    uint32_t qFrags[Q_FRAGS > 0 ? Q_FRAGS : 1][4];

    // S = Q K^T; this warpgroup's Q rows start 64 wg rows into each panel
    __device__ __forceinline__ void issueScores(float (&s)[SR], int stage) const {
        Rows::template issueQkT<Q_FRAGS>(s, qFrags, smem_u32(sQ) + (BQ == 64 ? 0 : wg * 64 * 128),
                                         smem_u32(sK + stage * KV_ELEMS));
    }

    // this warp's Q rows of the first Q_FRAGS k16 steps as A fragments, once its Q has landed in sQ
    __device__ __forceinline__ void loadQFragments(int thread) {
        if constexpr (Q_FRAGS > 0) Rows::loadQFrags(qFrags, sQ, wg * 64 + ((thread >> 5) & 3) * 16, thread & 31);
    }

    // O += P V: V read N-major, 16 kv rows (2048 bytes) per step, its D / 64 column panels BKV * 128 bytes apart
    __device__ __forceinline__ void issueOutput(float (&o)[OR], const uint32_t (&p)[BKV / 16][4], int stage) const {
        const uint32_t v = smem_u32(sV + stage * KV_ELEMS);
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            if constexpr (D == 256) {
                WgmmaN256<T>::rs_nmajor(o, p[kc], sw128_desc(v + kc * 16 * 128, BKV * 128, 1024), 1);
            } else {
                Wgmma<T, D>::rs_nmajor(o, p[kc], sw128_desc(v + kc * 16 * 128, BKV * 128, 1024), 1);
            }
        }
    }

    // this thread's place in consumer warpgroup `wgIndex` (thread = index within the warpgroup)
    __device__ __forceinline__ void seat(int wgIndex, int thread) {
        const int lane = thread & 31;
        wg = BQ == 64 ? 0 : wgIndex;
        rowInTile0 = wg * 64 + (thread >> 5) * 16 + (lane >> 2);
        t = lane & 3;
    }
};

// The producer's K(i) and V(i) of a row's count tiles into stage i % ST of the ring, each once tile i - ST has been
// released (its empty barriers), each thread's copies arriving on the stage's full barrier as they land
template <class CTA>
__device__ __forceinline__ void produce_kv_ring(const CTA& c, int count, const KvRing<CTA::ST>& ring, int pt) {
    constexpr int D = CTA::D;
    constexpr int BKV = CTA::BKV;
    constexpr int ST = CTA::ST;
    constexpr int KV = CTA::KV_ELEMS;
    int st = 0;
    uint32_t round = 0;
    for (int i = 0; i < count; ++i) {
        const int kv0 = c.kvIdx[c.begin + i] * BKV;
        if (i >= ST) mbar_wait(ring.emptyK + st, (round - 1) & 1);
        produce_tile_sw128<BKV, D, 128>(c.sK + st * KV, c.Kh, kv0, c.Skv, pt);
        mbar_arrive_cp_async(ring.fullK + st);
        if (i >= ST) mbar_wait(ring.emptyV + st, (round - 1) & 1);
        produce_tile_sw128<BKV, D, 128>(c.sV + st * KV, c.Vh, kv0, c.Skv, pt);
        mbar_arrive_cp_async(ring.fullV + st);
        if (++st == ST) {
            st = 0;
            ++round;
        }
    }
    cp_async_wait<0>();
}

// produce_kv_ring by the tensor memory accelerator, for one thread: each tile is D / 64 boxes of 64 columns (128-byte
// rows in the 128-byte swizzle, the layout produce_tile_sw128 writes) and BKV rows of kv head `kvHead`, the rows past
// Skv read as zeros; the stage's full barrier counts this thread's arrival and the tile's bytes.
template <class CTA>
__device__ __forceinline__ void produce_kv_tma(const CTA& c, int count, const KvRing<CTA::ST>& ring, const TensorMap* kMap,
                                               const TensorMap* vMap, int kvHead) {
    constexpr int D = CTA::D;
    constexpr int BKV = CTA::BKV;
    constexpr int ST = CTA::ST;
    constexpr int KV = CTA::KV_ELEMS;
    constexpr uint32_t TILE_BYTES = KV * 2;
    tma_prefetch(kMap);
    tma_prefetch(vMap);
    int st = 0;
    uint32_t round = 0;
    for (int i = 0; i < count; ++i) {
        const int kv0 = c.kvIdx[c.begin + i] * BKV;
        if (i >= ST) mbar_wait(ring.emptyK + st, (round - 1) & 1);
        mbar_arrive_expect_tx(ring.fullK + st, TILE_BYTES);
        tma_load_tile<BKV, D>(c.sK + st * KV, kMap, kv0, kvHead, ring.fullK + st);
        if (i >= ST) mbar_wait(ring.emptyV + st, (round - 1) & 1);
        mbar_arrive_expect_tx(ring.fullV + st, TILE_BYTES);
        tma_load_tile<BKV, D>(c.sV + st * KV, vMap, kv0, kvHead, ring.fullV + st);
        if (++st == ST) {
            st = 0;
            ++round;
        }
    }
}

#endif

template <typename T, int D, int CONSUMERS>
__device__ __forceinline__ void attention_fwd_wgmma_q64(SAW_FWD_PARAMS(T)) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    static_assert(CONSUMERS == 1 || CONSUMERS == 2, "one or two consumer warpgroups");
    using Shape = Q64Shape<D, CONSUMERS>;
    using Cta = Kv64Cta<T, D, W256_BQ, Shape::STAGES>;
    constexpr int BQ = Cta::BQ;
    constexpr int BKV = Cta::BKV;
    constexpr int ST = Cta::ST;

    extern __shared__ unsigned char smemRaw[];
    Cta c;
    uint64_t* fullQ = reinterpret_cast<uint64_t*>(c.place(smemRaw));
    KvRing<ST> ring;
    ring.place(fullQ + 1);
    const T* Qh = c.bind(Q, K, V, order, variantOf, rowPtr, rowPartial, kvIdx, maskIdx, bits, H, Hkv, Sq, Skv, nq, scale,
                         softcap, blockIdx.x);
    const int count = c.count;
    if (threadIdx.x == 0) {
        mbar_init(fullQ, 128);
        ring.init(128, 4);  // each tile is read by one consumer warpgroup: its four warps release it
        mbar_init_fence();
    }
    __syncthreads();

    if (threadIdx.x < 128) {
        // producer: Q once (its own barrier: with two consumers, warpgroup 1 starts on tile 1), then K(i) and V(i)
        // into stage i % ST once tile i - ST has been released
        if constexpr (Shape::PRODUCER_REGS > 0) regs_dealloc<Shape::PRODUCER_REGS>();
        const int pt = threadIdx.x;
        if (count > 0) {
            produce_tile_sw128<BQ, D, 128>(c.sQ, Qh, c.q0, Sq, pt);
            mbar_arrive_cp_async(fullQ);
        }
        produce_kv_ring(c, count, ring, pt);
        return;
    }
    if constexpr (Shape::CONSUMER_REGS > 0) regs_alloc<Shape::CONSUMER_REGS>();
    const int ct = threadIdx.x - 128;
    const int cw = ct >> 7;  // consumer warpgroup: list entries cw, cw + CONSUMERS, ...
    c.seat(0, ct & 127);
    const bool lane0 = (ct & 31) == 0;

    float o[Cta::OR];
    float m[2] = {-INFINITY, -INFINITY};
    float l[2] = {0.f, 0.f};
    float alpha[2];
    float s[Cta::SR];
    uint32_t p[BKV / 16][4];
#pragma unroll
    for (int i = 0; i < Cta::OR; ++i) o[i] = 0.f;

    const int mine = (count - cw + CONSUMERS - 1) / CONSUMERS;  // list entries this warpgroup takes
    if (mine > 0) {
        int j = cw;  // list entry; it sits in stage j % ST, in that stage's phase j / ST
        int st = j % ST;
        uint32_t phase = (j / ST) & 1;
        mbar_wait(fullQ, 0);
        mbar_wait(ring.fullK + st, phase);
        fence_proxy_async();
        wgmma_fence();
        c.issueScores(s, st);
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(s);
        warp_arrive(ring.emptyK + st, lane0);
        c.softmax(s, j, m, l, alpha);  // O is still 0: no rescale
        Cta::pack(p, s);

        for (int k = 1; k < mine; ++k) {
            const int j1 = j + CONSUMERS;
            const int st1 = j1 % ST;
            const uint32_t phase1 = (j1 / ST) & 1;
            mbar_wait(ring.fullK + st1, phase1);
            mbar_wait(ring.fullV + st, phase);
            fence_proxy_async();
            fence_regs(o);
            wgmma_fence();
            c.issueScores(s, st1);
            wgmma_commit();
            c.issueOutput(o, p, st);
            wgmma_commit();
            wgmma_wait<1>();
            fence_regs(s);
            warp_arrive(ring.emptyK + st1, lane0);
            c.softmax(s, j1, m, l, alpha);
            wgmma_wait<0>();
            fence_regs(o);
            warp_arrive(ring.emptyV + st, lane0);
            Cta::rescale(o, alpha);
            Cta::pack(p, s);
            j = j1;
            st = st1;
            phase = phase1;
        }
        // the last entry: P V only (peeled, as in ws_last_output)
        mbar_wait(ring.fullV + st, phase);
        fence_proxy_async();
        fence_regs(o);
        wgmma_fence();
        c.issueOutput(o, p, st);
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(o);
    }
    if (CONSUMERS == 2) {
        // warpgroup 1's (m, l, O) into the K/V stages once both are done reading them; [value][thread], so the
        // 128 threads of a warpgroup write and read consecutive words
        float* x = reinterpret_cast<float*>(c.sK);
        named_sync(1, 256);
        if (cw == 1) {
#pragma unroll
            for (int i = 0; i < Cta::OR; ++i) x[i * 128 + (ct & 127)] = o[i];
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                x[(Cta::OR + r) * 128 + (ct & 127)] = m[r];
                x[(Cta::OR + 2 + r) * 128 + (ct & 127)] = l[r];
            }
            named_arrive(2, 256);
            return;
        }
        named_sync(2, 256);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float m1 = x[(Cta::OR + r) * 128 + ct];
            const float l1 = x[(Cta::OR + 2 + r) * 128 + ct];
            const float mx = fmaxf(m[r], m1);
            const float base = mx == -INFINITY ? 0.f : mx * c.sl2;
            const float a0 = exp2_approx(m[r] * c.sl2 - base);
            const float a1 = exp2_approx(m1 * c.sl2 - base);
            m[r] = mx;
            l[r] = l[r] * a0 + l1 * a1;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int i = 4 * n + 2 * r + e;
                    o[i] = o[i] * a0 + x[i * 128 + ct] * a1;
                }
            }
        }
    }
    c.stageOutput(o, m, l, LSE, Sq);
    named_sync(3, 128);
    c.template storeOutput<W256_BQ, 128>(O, Sq, 0, ct);
#else
    __trap();  // wgmma needs sm_90a; the host never launches this elsewhere
#endif
}

// The 128-row CTA (fwd_wgmma{ws,pp}_*_d256_q128_kv64): FlashAttention-3's layout at D = 256. Two consumer
// warpgroups each own 64 of the CTA's 128 q rows (O 64 x 256 fp32: 128 registers per thread) and both read every
// K/V tile the producer loads once, so a 64 KB K/V tile feeds 8.4 MFLOP instead of the 64-row CTA's 4.2. One
// producer thread loads the tiles with the tensor memory accelerator (tensor maps of K and V from the host), which
// leaves the consumers the SM's issue slots and its load/store unit that the cp.async copies used. Q
// (128 x 256, 64 KB) and two stages of K and V (2 x 64 KB) take 193 KB; a third stage does not fit. Each
// consumer runs the intra-warpgroup overlap (S of tile i + 1 and P V of tile i in flight during the softmax of
// tile i + 1); PINGPONG adds attention_fwd_wgmma_ws's turns (named barriers 1 and 2), so one warpgroup's softmax
// runs while the other's products occupy the tensor cores. The host gives it the layout's mask compiled at
// 128 x 64 (its own row lists, bit tiles of 128 rows and work order): GpuBackend.forwardLists.
template <typename T, int D, bool PINGPONG>
__device__ __forceinline__ void attention_fwd_wgmma_d256_q128(SAW_FWD_PARAMS(T), const TensorMap* kMap,
                                                              const TensorMap* vMap) {
    static_assert(D == W256_D, "the head dim 256 forward");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using Cta = Kv64Cta<T, W256_D, W256_WIDE_BQ, W256_WIDE_STAGES, W256_WIDE_Q_FRAGS>;
    constexpr int BKV = Cta::BKV;
    constexpr int ST = Cta::ST;
    constexpr int CONSUMER_WARPS = 8;

    extern __shared__ unsigned char smemRaw[];
    Cta c;
    KvRing<ST> ring;
    ring.place(reinterpret_cast<uint64_t*>(c.place(smemRaw)));
    const T* Qh = c.bind(Q, K, V, order, variantOf, rowPtr, rowPartial, kvIdx, maskIdx, bits, H, Hkv, Sq, Skv, nq, scale,
                         softcap, blockIdx.x);
    const int count = c.count;
    if (threadIdx.x == 0) {
        ring.init(1, CONSUMER_WARPS);  // one thread issues each tile's copies; both warpgroups read every tile
        mbar_init_fence();
    }
    __syncthreads();

    if (threadIdx.x < 128) {
        // producer: one thread has the tensor memory accelerator load K(i) and V(i) into stage i % ST once both
        // consumers have released tile i - ST (each consumer loads its own rows of Q)
        regs_dealloc<W256_WIDE_PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            const int kvHead = c.bh / H * Hkv + c.bh % H / (H / Hkv);  // as bind() maps the head
            produce_kv_tma(c, count, ring, kMap, vMap, kvHead);
        }
        return;
    }
    regs_alloc<W256_WIDE_CONSUMER_REGS>();
    const int ct = threadIdx.x - 128;
    const int cw = ct >> 7;
    c.seat(cw, ct & 127);
    const bool lane0 = (ct & 31) == 0;
    // named barrier 1 + w: warpgroup w's turn to issue; 256 = its 128 waiting threads + the other's 128 arriving.
    // Constant ids: with 1 + cw in a register the consumers spilled 4 bytes at 232 registers.
    auto takeTurn = [&]() {
        if (PINGPONG) {
            if (cw == 0) named_sync(1, 256);
            else named_sync(2, 256);
        }
    };
    auto passTurn = [&]() {
        if (PINGPONG) {
            if (cw == 0) named_arrive(2, 256);
            else named_arrive(1, 256);
        }
    };

    float o[Cta::OR];
    float m[2] = {-INFINITY, -INFINITY};
    float l[2] = {0.f, 0.f};
    float s[Cta::SR];
    uint32_t p[BKV / 16][4];
#pragma unroll
    for (int i = 0; i < Cta::OR; ++i) o[i] = 0.f;

    if (count > 0) {
        // this warpgroup's 64 rows of Q, while the producer loads K(0); named barrier 3 + cw: all its copies landed
        load_rows<typename Cta::QTile, 64, D, 128>(c.sQ + cw * 64 * 64, Qh, c.q0 + cw * 64, Sq, ct & 127);
        cp_async_commit();
        cp_async_wait<0>();
        fence_proxy_async();
        named_sync(3 + cw, 128);
        c.loadQFragments(ct & 127);
        RingAt<ST> at;
        if (PINGPONG && cw == 1) named_arrive(1, 256);  // warpgroup 0 goes first
        ws_consume<PINGPONG, ST>(c, count, ring, at, lane0, o, m, l, s, p, takeTurn, passTurn, [] {});
        if (PINGPONG && cw == 0) named_sync(1, 256);  // takes warpgroup 1's last pass: the counts balance
    }
    // each warpgroup stages its own rows of O over its own rows of Q (its Q K^T is done) and stores them
    c.stageOutput(o, m, l, LSE, Sq);
    named_sync(3 + cw, 128);
    c.template storeOutput<64, 128>(O, Sq, cw * 64, ct & 127);
#else
    __trap();  // wgmma needs sm_90a; the host never launches this elsewhere
#endif
}

}  // namespace saw

// The 64-row forwards (fwd_wgmma{ws,pp}_*_d{64,128,256}_q64_kv64): a producer and CONSUMERS consumer warpgroups,
// Q64Shape's CTAs per SM
#define SAW_FWD_WGMMA_Q64(NAME, T, D, CONSUMERS)                                                                   \
    SAW_FWD_HOPPER_CTAS(NAME, saw::attention_fwd_wgmma_q64, 128 * (1 + CONSUMERS), (saw::Q64Shape<D, CONSUMERS>::CTAS), \
                        T, D, CONSUMERS)
#define SAW_FWD_WGMMA_Q64_ALL(TN, T, D)                                        \
    SAW_FWD_WGMMA_Q64(fwd_wgmmaws_##TN##_d##D##_q64_kv64, T, D, 1)              \
    SAW_FWD_WGMMA_Q64(fwd_wgmmapp_##TN##_d##D##_q64_kv64, T, D, 2)

SAW_FWD_WGMMA_Q64_ALL(bf16, __nv_bfloat16, 64)
SAW_FWD_WGMMA_Q64_ALL(fp16, __half, 64)
SAW_FWD_WGMMA_Q64_ALL(bf16, __nv_bfloat16, 128)
SAW_FWD_WGMMA_Q64_ALL(fp16, __half, 128)
SAW_FWD_WGMMA_Q64_ALL(bf16, __nv_bfloat16, 256)
SAW_FWD_WGMMA_Q64_ALL(fp16, __half, 256)

// the forward's parameters, then the tensor maps of K and V ([B * Hkv][Skv][D], boxes of 64 x 64: GpuBackend)
#define SAW_FWD_WGMMA_D256_Q128(NAME, T, PINGPONG)                                                                    \
    extern "C" __global__ void __launch_bounds__(384, 1) NAME(SAW_FWD_PARAMS(T), const __grid_constant__ saw::TensorMap kMap, \
                                                          const __grid_constant__ saw::TensorMap vMap) {          \
        saw::attention_fwd_wgmma_d256_q128<T, 256, PINGPONG>(Q, K, V, O, LSE, order, variantOf, rowPtr, rowPartial,   \
                                                             kvIdx, maskIdx, bits, H, Hkv, Sq, Skv, nq, scale,       \
                                                             softcap, &kMap, &vMap);                                 \
    }

SAW_FWD_WGMMA_D256_Q128(fwd_wgmmaws_bf16_d256_q128_kv64, __nv_bfloat16, false)
SAW_FWD_WGMMA_D256_Q128(fwd_wgmmaws_fp16_d256_q128_kv64, __half, false)
SAW_FWD_WGMMA_D256_Q128(fwd_wgmmapp_bf16_d256_q128_kv64, __nv_bfloat16, true)
SAW_FWD_WGMMA_D256_Q128(fwd_wgmmapp_fp16_d256_q128_kv64, __half, true)
