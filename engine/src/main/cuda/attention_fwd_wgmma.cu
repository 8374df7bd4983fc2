// Block-sparse attention forwards for Hopper (sm_90a) at head dims 64 and 128: the same layout tables, outputs and
// launch order as attention_fwd.cu (see its header; included after it: SAW_FWD_PARAMS), with warpgroup MMA (wgmma)
// instead of mma.sync, 128 q rows and 128-row K/V tiles in wgmma's 128-byte swizzle. The families here are
// warp-specialised and persistent (attention_fwd_wgmma_ws: wgmma-ws, fwd_wgmmaws_*, and wgmma-pp, fwd_wgmmapp_*): a
// producer warpgroup loads, two consumer warpgroups of 64 rows compute. S = Q K^T reads Q and K from shared memory
// (or Q from registers, WS_Q_FRAGS); P stays in registers and is the A operand of O += P V, with V read N-major from
// shared memory (no transpose pass). WgRows, KvRing and ws_consume are shared with the 64-row and head dim 256
// forwards (attention_fwd_wgmma_d256.cu). The first two Hopper forward families, without warp specialisation, were
// retired; they remain in git history (docs/kernel-notes.md, "Retired Hopper families").
//
// Built only in the sm_90a pass (__CUDA_ARCH_FEAT_SM90_ALL); the sm_80 image holds entry points that trap, and
// the host launches these only on compute capability 9.0.

#include "pipeline.cuh"
#include "wgmma.cuh"

namespace saw {

// two warpgroups: the warp-specialised forwards' consumers (the named barriers of their turns count both); their
// producer warpgroup is WG_THREADS / 2
constexpr int WG_THREADS = 256;
constexpr int WG_BQ = 128;
constexpr int WG_BKV = 128;
constexpr int WG_STAGES = 3;  // K/V buffers: Q + 3 x (K, V) = 224 KB at D = 128, inside Hopper's 227 KB
// warp-specialised kernels: a producer warpgroup and two consumer warpgroups; 128 x 56 + 256 x 224 registers = the
// 384 x 168 a CTA gets at launch (at 48 the persistent producer spilled)
constexpr int WS_THREADS = 384;
// Q buffers per warpgroup of the persistent forward: two at D = 64 with turns (wgmma-pp), so that its rows run as one
// pipeline (a row's last P V beside the next row's first Q K^T, whose Q landed a row ahead); one elsewhere: at D = 128 a
// second buffer would take the third K/V stage's 32 KB, which costs more, and without turns (wgmma-ws) the pipeline
// measured slower (docs/kernel-notes.md, "Thirteenth session: short rows")
template <int D, bool PINGPONG>
constexpr int WS_Q_BUFFERS = D == 64 && PINGPONG ? 2 : 1;
// k16 steps of each consumer warpgroup's Q that the persistent forward holds as wgmma A fragments (0: Q K^T reads Q from
// shared memory): all of Q at D = 64 without turns (16 registers a thread), so Q K^T reads only K and the one Q buffer
// is free for the next row as soon as the fragments are loaded (H200: 1.08-1.10x); with turns, where the next row's
// Q is already in the second buffer, the fragments measured 0.97-0.98x (docs/kernel-notes.md, "Q in registers")
template <int D, bool PINGPONG>
constexpr int WS_Q_FRAGS = D == 64 && !PINGPONG ? 4 : 0;
constexpr int WS_PRODUCER_REGS = 56;
constexpr int WS_CONSUMER_REGS = 224;

// The mbarriers of the warp-specialised forwards' ring of ST K/V stages, K and V apart so that Q K^T of a tile starts
// before its V has landed: the producer's copies arrive on the full ones, the consumer warps on the empty ones.
template <int ST>
struct KvRing {
    uint64_t* fullK;
    uint64_t* fullV;
    uint64_t* emptyK;
    uint64_t* emptyV;
    // with row spans (the persistent forward's SPANS kernels): the producer's copy of a PARTIAL tile's row spans into
    // its stage has landed (released on emptyK with the stage's K). Only PARTIAL tiles complete a phase, so each side
    // keeps a stage's parity apart (RingAt::spanPhases)
    uint64_t* fullS = nullptr;

    // the four arrays of ST barriers from `at` on
    __device__ __forceinline__ void place(uint64_t* at) {
        fullK = at;
        fullV = fullK + ST;
        emptyK = fullV + ST;
        emptyV = emptyK + ST;
    }

    // by one thread, before the CTA barrier: `producers` threads fill a stage, `consumerWarps` warps release it
    __device__ __forceinline__ void init(uint32_t producers, uint32_t consumerWarps) const {
        for (int st = 0; st < ST; ++st) {
            mbar_init(fullK + st, producers);
            mbar_init(fullV + st, producers);
            mbar_init(emptyK + st, consumerWarps);
            mbar_init(emptyV + st, consumerWarps);
        }
    }
};

// A row of the work order as the kernels walk it: its work-order slot, its item (q block + nq * (b * H + h)), and its
// list in the tables. Reading it is a chain of dependent loads (order, variantOf, rowPtr / rowPartial).
struct RowRef {
    int slot, item, begin, count, partials;
};
static_assert(sizeof(RowRef) == 5 * 4, "KernelCatalog.ROW_REF_INTS ints in the row ring's entries");

__device__ __forceinline__ RowRef row_ref(const int* order, const int* variantOf, const int* rowPtr,
                                          const int* rowPartial, int nq, int slot) {
    RowRef r;
    r.slot = slot;
    r.item = order[slot];
    const int row = variantOf[r.item / nq] * nq + r.item % nq;
    r.begin = rowPtr[row];
    r.count = rowPtr[row + 1] - r.begin;
    r.partials = rowPartial[row];
    return r;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// What every forward CTA of the Hopper families keeps (this file's at D 64/128 and the D = 256 one's): its row of
// the layout, its heads' pointers, this thread's rows, the softmax constants, and the softmax, rescale and output
// steps that do not depend on how the scores were issued.
template <typename T, int D, int BQ_, int BKV_, int STAGES>
struct WgRows {
    static constexpr int BQ = BQ_;
    static constexpr int BKV = BKV_;
    static constexpr int SR = BKV / 2;  // score accumulators per thread (64 x BKV per warpgroup)
    static constexpr int OR = D / 2;    // output accumulators per thread
    static constexpr int WORDS = BKV / 32;
    // a PARTIAL tile's row spans (TileLists#rowSpans): word 8 (r / 16) + r % 16 holds rows r and r + 8 (r % 16 < 8),
    // each as (first key, keys) in two bytes, so a thread's two rows are one word
    static constexpr int SPAN_WORDS = BQ / 2;
    using QTile = Sw128<BQ, D>;
    // The row max is kept until a tile passes it by more than KEPT_MAX_SLACK_LOG2 at D = 256, where skipping the O
    // rescale (128 registers a thread) measured 1.11-1.16x; at D = 64 it lost 5-6% and at D = 128 it changed nothing,
    // so those keep the exact running max (docs/kernel-notes.md, "A kept row max").
    static constexpr bool KEEP_MAX = D == 256;

    T* sQ;
    T* sK;
    T* sV;
    int rowInTile0, t;  // this thread's first row (g) in the q tile; the second is + 8
    int bh, q0, begin, count, partials;
    const T* Kh;
    const T* Vh;
    const int* kvIdx;
    const int* maskIdx;
    const uint32_t* bits;
    // the K/V stages' row spans in shared memory (SPAN_WORDS each) in the persistent forward's SPANS kernels
    uint32_t* sSpans = nullptr;
    int Skv;
    bool capped;
    float sl2, capIn, softcap;
    float keptMaxSlack;  // KEPT_MAX_SLACK_LOG2 in the units of the score registers (KEEP_MAX)

    // S = Q K^T over D/16 k16 steps (q: this warpgroup's first Q row in the tile, k: the stage's K): inside a 64-column
    // panel a step moves 32 bytes, a new panel BQ (Q) or BKV (K) rows further. The first NF steps take this warp's Q rows
    // from registers instead (qf, from loadQFrags) and read only K.
    template <int NF, int N>
    static __device__ __forceinline__ void issueQkT(float (&s)[SR], const uint32_t (&qf)[N][4], uint32_t q, uint32_t k) {
        static_assert(NF <= N, "the fragments of NF k16 steps");
        const DescStepsFor<D> kd(k, 16, 1024);
        const DescStepsFor<D> qd(q, 16, 1024);
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const uint32_t inPanel = (kc & 3) * 32;
            const uint64_t kDesc = kd.at((kc >> 2) * (BKV * 128) + inPanel);
            if (kc < NF) {
                Wgmma<T, BKV>::rs(s, qf[kc < NF ? kc : 0], kDesc, kc > 0 ? 1 : 0);
            } else {
                Wgmma<T, BKV>::ss(s, qd.at((kc >> 2) * (BQ * 128) + inPanel), kDesc, kc > 0 ? 1 : 0);
            }
        }
    }

    // the first NF k16 steps of this warp's 16 rows of Q (from row `row0` of the tile at q) as wgmma A fragments
    template <int NF>
    static __device__ __forceinline__ void loadQFrags(uint32_t (&qf)[NF][4], const T* q, int row0, int lane) {
#pragma unroll
        for (int kc = 0; kc < NF; ++kc) {
            ldmatrix_x4(qf[kc], smem_u32(q + QTile::elem(row0 + (lane & 15), 16 * kc + 8 * (lane >> 4))));
        }
    }

    // Index of PARTIAL tile i's bit tile (0 past the row's PARTIAL tiles, where no caller reads bits). Kept apart from
    // maskWords as measured: folding it in drops a redundant branch but moves the D = 256 `pp` kernel's spills from
    // 16 / 28 bytes to 20 / 36, as in the variant that lost there (kernel notes, "Mask bits before the scores' wait").
    __device__ __forceinline__ int maskIndex(int i) const { return i < partials ? __ldg(maskIdx + begin + i) : 0; }

    // This thread's two rows of PARTIAL tile i's bits (bit tile `index`), left unset past the PARTIAL tiles, where
    // softmax does not read them. The warp-specialised rows (ws_row_steps) load them before waiting for tile i's
    // scores rather than after: 1.05x on causal 8K and 1.03x on 8 documents at D = 256, level at D = 64 and 128
    // (docs/kernel-notes.md, "Mask bits before the scores' wait").
    __device__ __forceinline__ void maskWords(int i, int index, uint32_t (&w)[2][WORDS]) const {
        if (i < partials) {
            const uint32_t* tileBits = bits + (size_t)index * BQ * WORDS;
#pragma unroll
            for (int r = 0; r < 2; ++r) {
#pragma unroll
                for (int x = 0; x < WORDS; ++x) w[r][x] = __ldg(tileBits + (rowInTile0 + 8 * r) * WORDS + x);
            }
        }
    }

    // this thread's word of the row spans of the tile in K/V stage `stage` (SPANS kernels). A warp's 16 rows are 8
    // consecutive words: lane 0 alone reads them (two 16-byte loads) and hands each to its four lanes by shuffles.
    // Lane 0 is the thread that releases the stage for its warp (warp_arrive), so every read of the slot is ordered
    // before the producer's next store into it by one thread's release; the sanitizer's race check does not carry the
    // other lanes' reads through the __syncwarp before that arrive (docs/kernel-notes.md, "row spans")
    __device__ __forceinline__ uint32_t spanWord(int stage, bool lane0) const {
        const uint4* warpWords = reinterpret_cast<const uint4*>(sSpans + stage * SPAN_WORDS + (rowInTile0 >> 4) * 8);
        uint4 lo = make_uint4(0u, 0u, 0u, 0u);
        uint4 hi = lo;
        if (lane0) {
            lo = warpWords[0];
            hi = warpWords[1];
        }
        const uint32_t words[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        const int mine = rowInTile0 & 7;
        uint32_t span = 0;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const uint32_t w = __shfl_sync(0xffffffffu, words[k], 0);
            if (mine == k) span = w;
        }
        return span;
    }

    __device__ __forceinline__ void softmax(float (&s)[SR], int i, float (&m)[2], float (&l)[2], float (&alpha)[2]) const {
        uint32_t w[2][WORDS];
        maskWords(i, maskIndex(i), w);
        softmax(s, i, w, m, l, alpha);
    }

    // softcap and the token mask of tile i (PARTIAL tiles only: w, from maskWords) on the scores; then the online
    // softmax: s becomes P (unnormalised, fp32), m and l move on, alpha[r] is what row r's O must be multiplied by
    __device__ __forceinline__ void softmax(float (&s)[SR], int i, const uint32_t (&w)[2][WORDS], float (&m)[2],
                                            float (&l)[2], float (&alpha)[2]) const {
        capScores(s);
        if (i < partials) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
#pragma unroll
                for (int n = 0; n < BKV / 8; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int j = n * 8 + 2 * t + e;
                        if (!((w[r][j >> 5] >> (j & 31)) & 1u)) s[4 * n + 2 * r + e] = -INFINITY;
                    }
                }
            }
        }
        online(s, m, l, alpha);
    }

    // softmax with tile i's mask (PARTIAL tiles only) given as this thread's word of its row spans (spanWord)
    __device__ __forceinline__ void softmaxSpans(float (&s)[SR], int i, uint32_t span, float (&m)[2], float (&l)[2],
                                                 float (&alpha)[2]) const {
        capScores(s);
        if (i < partials) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const uint32_t first = (span >> (16 * r)) & 0xffu;
                const uint32_t keys = (span >> (16 * r + 8)) & 0xffu;
                const uint32_t base = 2u * t - first;  // key j is in the span when j - first < keys, unsigned
#pragma unroll
                for (int n = 0; n < BKV / 8; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        if (base + (uint32_t)(n * 8 + e) >= keys) s[4 * n + 2 * r + e] = -INFINITY;
                    }
                }
            }
        }
        online(s, m, l, alpha);
    }

    __device__ __forceinline__ void capScores(float (&s)[SR]) const {
        if (capped) {
#pragma unroll
            for (int x = 0; x < SR; ++x) s[x] = softcap * tanhf(s[x] * capIn);
        }
    }

    // the online softmax over masked scores: s becomes P, m and l move on, alpha as in softmax
    __device__ __forceinline__ void online(float (&s)[SR], float (&m)[2], float (&l)[2], float (&alpha)[2]) const {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float base;
            if constexpr (KEEP_MAX) {
                // The kept max moves only when the tile's passes it by more than KEPT_MAX_SLACK_LOG2 (FlashAttention-4's
                // conditional rescale): P then stays below 2^8, exact in fp32 and bf16/fp16 alike, since l, O and LSE
                // all use the kept max, and most tiles after a row's first leave O alone (rescale skips when no row of
                // the warp moved). What depends on the kept max alone is computed before the tile's max, and the
                // tile's max is a tree, so the chain from the scores to the exponentials is no longer than before.
                const float kept = m[r] * sl2;
                const float keptBase = m[r] == -INFINITY ? 0.f : kept;
                const float growAbove = m[r] + keptMaxSlack;
                static_assert(BKV == 64 || BKV == 128, "a tree over 8 or 16 n8 blocks");
                float v[BKV / 8];
#pragma unroll
                for (int n = 0; n < BKV / 8; ++n) v[n] = fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]);
                if constexpr (BKV == 128) {
#pragma unroll
                    for (int n = 0; n < 8; ++n) v[n] = fmaxf(v[n], v[n + 8]);
                }
#pragma unroll
                for (int n = 0; n < 4; ++n) v[n] = fmaxf(v[n], v[n + 4]);
                const float mx = quad_max(fmaxf(fmaxf(v[0], v[2]), fmaxf(v[1], v[3])));
                const bool grow = mx > growAbove;
                base = grow ? mx * sl2 : keptBase;
                alpha[r] = grow ? exp2_approx(kept - base) : 1.f;
                m[r] = grow ? mx : m[r];
            } else {
                float mx = m[r];
#pragma unroll
                for (int n = 0; n < BKV / 8; ++n) mx = fmaxf(mx, fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]));
                mx = quad_max(mx);
                base = mx == -INFINITY ? 0.f : mx * sl2;
                alpha[r] = exp2_approx(m[r] * sl2 - base);
                m[r] = mx;
            }
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
        if constexpr (KEEP_MAX) {
            if (!__any_sync(0xffffffffu, alpha[0] != 1.f || alpha[1] != 1.f)) return;  // no row of the warp moved its max
        }
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

    // a row's log-sum-exp from its running max and its (quad-summed) sum; -inf for a row that attends nothing
    __device__ __forceinline__ float lse(float rowMax, float sum) const {
        return sum > 0.f ? (rowMax * sl2 + __log2f(sum)) * LN2 : -INFINITY;
    }

    // normalise this thread's rows of O into sQ (its own warpgroup's rows: their Q K^T is done) and write LSE
    __device__ __forceinline__ void stageOutput(const float (&o)[OR], const float (&m)[2], const float (&l)[2], float* LSE,
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
                LSE[(size_t)bh * Sq + q] = lse(m[r], sum);
            }
        }
    }

    // normalise this thread's rows of O and store them from the registers straight to global memory, and write LSE:
    // no shared memory, so the persistent forward's next Q can already be landing where this tile's Q was. Lanes t and
    // t ^ 1 of a quad swap one packed pair per two 8-column blocks, so that each stores 8 bytes (4 columns) of one of
    // them: half the store instructions of 4-byte stores, whose queue the output otherwise waits on
    __device__ __forceinline__ void writeOutput(const float (&o)[OR], const float (&m)[2], const float (&l)[2], T* O,
                                                float* LSE, int Sq) const {
        const bool odd = t & 1;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float sum = quad_sum(l[r]);
            const float inv = sum > 0.f ? 1.f / sum : 0.f;
            const int q = q0 + rowInTile0 + 8 * r;
            T* row = O + ((size_t)bh * Sq + (q < Sq ? q : 0)) * D + 2 * (t & ~1);
#pragma unroll
            for (int n = 0; n < D / 8; n += 2) {
                const uint32_t a = Elem<T>::pack(o[4 * n + 2 * r] * inv, o[4 * n + 2 * r + 1] * inv);
                const uint32_t b = Elem<T>::pack(o[4 * n + 4 + 2 * r] * inv, o[4 * n + 4 + 2 * r + 1] * inv);
                store_pairs8(row, n, a, b, odd, q < Sq);
            }
            if (t == 0 && q < Sq) LSE[(size_t)bh * Sq + q] = lse(m[r], sum);
        }
    }

    // 16-byte stores of rows [row0, row0 + ROWS) of the staged O by THREADS threads (callers sync before)
    template <int ROWS, int THREADS>
    __device__ __forceinline__ void storeOutput(T* O, int Sq, int row0, int thread) const {
        T* Oh = O + (size_t)bh * Sq * D;
        constexpr int CHUNKS = D / 8;
        for (int i = thread; i < ROWS * CHUNKS; i += THREADS) {
            const int r = row0 + i / CHUNKS;
            const int c = i % CHUNKS;
            if (q0 + r < Sq) {
                *reinterpret_cast<uint4*>(Oh + (size_t)(q0 + r) * D + c * 8) =
                    *reinterpret_cast<const uint4*>(sQ + QTile::chunk(r, c));
            }
        }
    }

    // the row of the layout at `slot` of the work order, its heads and the softmax constants; returns Q of its head
    __device__ __forceinline__ const T* bind(const T* Q, const T* K, const T* V, const int* order, const int* variantOf,
                                             const int* rowPtr, const int* rowPartial, const int* kvIdx_,
                                             const int* maskIdx_, const uint32_t* bits_, int H, int Hkv, int Sq,
                                             int Skv_, int nq, float scale, float softcap_, int slot) {
        return bindRow(Q, K, V, kvIdx_, maskIdx_, bits_, H, Hkv, Sq, Skv_, nq, scale, softcap_,
                       row_ref(order, variantOf, rowPtr, rowPartial, nq, slot));
    }

    // bind for a row already read from the tables (no loads)
    __device__ __forceinline__ const T* bindRow(const T* Q, const T* K, const T* V, const int* kvIdx_,
                                                const int* maskIdx_, const uint32_t* bits_, int H, int Hkv, int Sq,
                                                int Skv_, int nq, float scale, float softcap_, const RowRef& r) {
        const int qb = r.item % nq;
        bh = r.item / nq;
        const int h = bh % H;
        const int b = bh / H;
        const int hkv = h / (H / Hkv);
        begin = r.begin;
        count = r.count;
        partials = r.partials;
        q0 = qb * BQ;
        Kh = K + (size_t)(b * Hkv + hkv) * Skv_ * D;
        Vh = V + (size_t)(b * Hkv + hkv) * Skv_ * D;
        kvIdx = kvIdx_;
        maskIdx = maskIdx_;
        bits = bits_;
        Skv = Skv_;
        capped = softcap_ > 0.f;
        sl2 = capped ? LOG2E : scale * LOG2E;
        capIn = capped ? scale / softcap_ : 0.f;
        if constexpr (KEEP_MAX) keptMaxSlack = KEPT_MAX_SLACK_LOG2 / sl2;
        softcap = softcap_;
        return Q + (size_t)bh * Sq * D;
    }

    // the 1024-byte-aligned start of Q, then ST stages of K and of V; returns the end
    __device__ __forceinline__ unsigned char* place(unsigned char* raw) {
        const uint32_t rawAddr = smem_u32(raw);
        sQ = reinterpret_cast<T*>(raw + (((rawAddr + 1023u) & ~1023u) - rawAddr));
        sK = sQ + BQ * D;
        sV = sK + STAGES * BKV * D;
        return reinterpret_cast<unsigned char*>(sV + STAGES * BKV * D);
    }

};

// What every step of a CTA of this file's families needs besides WgRows: its warpgroup, the loads and the products.
template <typename T, int D, int Q_FRAGS_ = 0>
struct WgCta : WgRows<T, D, WG_BQ, WG_BKV, WG_STAGES> {
    using Rows = WgRows<T, D, WG_BQ, WG_BKV, WG_STAGES>;
    using Rows::BQ;
    using Rows::BKV;
    using Rows::SR;
    using Rows::OR;
    using Rows::sQ;
    using Rows::sK;
    using Rows::sV;
    using Rows::rowInTile0;
    using Rows::t;
    using Rows::begin;
    using Rows::kvIdx;
    using Rows::Skv;
    static constexpr uint32_t KV_BYTES = BKV * D * 2;
    static constexpr int Q_FRAGS = Q_FRAGS_;

    int tid, wg;
    uint32_t qFrags[Q_FRAGS > 0 ? Q_FRAGS : 1][4];

    // by the producer warpgroup of the warp-specialised kernels
    __device__ __forceinline__ void produceKv(T* tile, const T* src, int i, int thread) const {
        produce_tile_sw128<BKV, D, WG_THREADS / 2>(tile, src, kvIdx[begin + i] * BKV, Skv, thread);
    }
    __device__ __forceinline__ uint32_t qAddr() const { return smem_u32(sQ) + wg * 64 * 128; }

    __device__ __forceinline__ void issueScores(float (&s)[SR], int kStage) const { issueScores(s, kStage, 0u); }
    // the same over a Q buffer `qOffset` bytes from sQ (the persistent forward's second one)
    __device__ __forceinline__ void issueScores(float (&s)[SR], int kStage, uint32_t qOffset) const {
        Rows::template issueQkT<Q_FRAGS>(s, qFrags, qAddr() + qOffset, smem_u32(sK) + kStage * KV_BYTES);
    }
    // this warp's Q rows of the first Q_FRAGS k16 steps as A fragments, once they have landed and every Q K^T that read
    // the fragments before has completed
    __device__ __forceinline__ void loadQFragments() {
        if constexpr (Q_FRAGS > 0) Rows::loadQFrags(qFrags, sQ, wg * 64 + ((tid >> 5) & 3) * 16, tid & 31);
    }

    // O += P V: V read N-major, 16 kv rows (2048 bytes) per step, 64-column panels BKV * 128 bytes apart
    __device__ __forceinline__ void issueOutput(float (&o)[OR], const uint32_t (&p)[BKV / 16][4], int vStage) const {
        const DescStepsFor<D> v(smem_u32(sV) + vStage * KV_BYTES, BKV * 128, 1024);
#pragma unroll
        for (int kc = 0; kc < BKV / 16; ++kc) {
            Wgmma<T, D>::rs_nmajor(o, p[kc], v.at(kc * 16 * 128), 1);
        }
    }

    // this thread's place among `wgIndex`'s 128 threads (thread = index within the warpgroup)
    __device__ __forceinline__ void seat(int wgIndex, int thread) {
        tid = thread;
        wg = wgIndex;
        const int lane = thread & 31;
        rowInTile0 = wg * 64 + ((thread >> 5) & 3) * 16 + (lane >> 2);
        t = lane & 3;
    }
};

#endif

// Where a consumer or producer is in the ring of ST K/V stages: the stage of the next tile and the parity of that
// stage's current phase. The persistent forward carries it from one row of the layout to the next.
template <int ST>
struct RingAt {
    int stage = 0;
    uint32_t phase = 0;
    uint32_t spanPhases = 0;  // bit st: the parity of KvRing::fullS[st]'s current phase (SPANS kernels)

    __device__ __forceinline__ void advance() {
        if (++stage == ST) {
            stage = 0;
            phase ^= 1u;
        }
    }
};

// A row's tiles after its first Q K^T was issued (stage st, phase `phase`; left at its last tile): that Q K^T's wait
// and softmax, then per tile i + 1 its Q K^T (issueScores(s, stage)) and tile i's P V in flight during tile i + 1's
// softmax; with PINGPONG the warpgroups take turns issuing (takeTurn / passTurn). qRead() runs once the row's last Q K^T
// has completed: the warpgroup reads its rows of Q no more. Leaves tile count - 1's P V to issue (ws_last_output).
template <bool PINGPONG, int ST, bool SPANS = false, class CTA, int OR, int SR, int PK, class TAKE, class PASS,
          class QREAD, class SCORES>
__device__ __forceinline__ void ws_row_steps(CTA& c, int count, const KvRing<ST>& ring, int& st, uint32_t& phase,
                                             uint32_t& spanPhases, bool lane0, float (&o)[OR], float (&m)[2],
                                             float (&l)[2], float (&s)[SR], uint32_t (&p)[PK][4], TAKE takeTurn,
                                             PASS passTurn, QREAD qRead, SCORES issueScores) {
    float alpha[2];
    // tile i's mask (PARTIAL tiles): with SPANS this thread's word of its row spans, read from its stage before the
    // stage is released; else its mask bits, loaded while its scores are computed. Both come after the turn is passed,
    // off the path to the next issue
    uint32_t span = 0;
    uint32_t w[2][CTA::WORDS];
    auto readSpan = [&](int stage, int i) {
        uint32_t word = 0;
        if (i < c.partials) {  // FULL tiles neither store nor wait: every phase of fullS is a PARTIAL tile's
            mbar_wait(ring.fullS + stage, (spanPhases >> stage) & 1u);
            spanPhases ^= 1u << stage;
            word = c.spanWord(stage, lane0);
            asm volatile("" : "+r"(word));  // the loads and shuffles here, not sunk past the scores' wait
        }
        return word;
    };
    if constexpr (SPANS) {
        span = readSpan(st, 0);
    } else {
        c.maskWords(0, c.maskIndex(0), w);
    }
    wgmma_wait<0>();
    fence_regs(s);
    warp_arrive(ring.emptyK + st, lane0);
    if (count == 1) qRead();
    if constexpr (SPANS) {
        c.softmaxSpans(s, 0, span, m, l, alpha);  // O is still 0: no rescale
    } else {
        c.softmax(s, 0, w, m, l, alpha);
    }
    CTA::pack(p, s);

    for (int it = 0; it + 1 < count; ++it) {
        const int st1 = st + 1 == ST ? 0 : st + 1;
        const uint32_t phase1 = st1 == 0 ? phase ^ 1u : phase;
        mbar_wait(ring.fullK + st1, phase1);
        mbar_wait(ring.fullV + st, phase);
        fence_proxy_async();
        takeTurn();
        fence_regs(o);
        wgmma_fence();
        issueScores(s, st1);
        wgmma_commit();
        c.issueOutput(o, p, st);
        wgmma_commit();
        passTurn();
        if constexpr (SPANS) {
            span = readSpan(st1, it + 1);
        } else {
            c.maskWords(it + 1, c.maskIndex(it + 1), w);
        }
        wgmma_wait<1>();
        fence_regs(s);
        warp_arrive(ring.emptyK + st1, lane0);
        if (it + 2 == count) qRead();
        if constexpr (SPANS) {
            c.softmaxSpans(s, it + 1, span, m, l, alpha);
        } else {
            c.softmax(s, it + 1, w, m, l, alpha);
        }
        wgmma_wait<0>();
        fence_regs(o);
        warp_arrive(ring.emptyV + st, lane0);
        CTA::rescale(o, alpha);
        CTA::pack(p, s);
        st = st1;
        phase = phase1;
    }
}

// A row's last tile: its P V alone (peeled: a conditional Q K^T beside it would make the compiler serialise the
// wgmmas), waited for, its V stage released.
template <int ST, class CTA, int OR, int PK, class TAKE, class PASS>
__device__ __forceinline__ void ws_last_output(CTA& c, const KvRing<ST>& ring, int st, uint32_t phase, bool lane0,
                                               float (&o)[OR], uint32_t (&p)[PK][4], TAKE takeTurn, PASS passTurn) {
    mbar_wait(ring.fullV + st, phase);
    fence_proxy_async();
    takeTurn();
    fence_regs(o);
    wgmma_fence();
    c.issueOutput(o, p, st);
    wgmma_commit();
    passTurn();
    wgmma_wait<0>();
    fence_regs(o);
    warp_arrive(ring.emptyV + st, lane0);
}

// The consumer warpgroups' walk over one row's tiles in the warp-specialised forwards (attention_fwd_wgmma_ws and the
// head dim 256 forward with 128-row CTAs), once the row has tiles: K(i) and V(i) arrive in their stage of the ring
// (from `at` on, which is left past the row's last tile) on their full barriers and are released on their empty ones;
// ws_row_steps, then ws_last_output; the caller starts and ends the turns. Leaves O, m and l for the output.
template <bool PINGPONG, int ST, bool SPANS = false, class CTA, int OR, int SR, int PK, class TAKE, class PASS,
          class QREAD>
__device__ __forceinline__ void ws_consume(CTA& c, int count, const KvRing<ST>& ring, RingAt<ST>& at, bool lane0,
                                           float (&o)[OR], float (&m)[2], float (&l)[2], float (&s)[SR],
                                           uint32_t (&p)[PK][4], TAKE takeTurn, PASS passTurn, QREAD qRead) {
    int st = at.stage;  // stage of tile it, and the parity of its barriers' current phase
    uint32_t phase = at.phase;
    mbar_wait(ring.fullK + st, phase);
    fence_proxy_async();
    takeTurn();
    wgmma_fence();
    c.issueScores(s, st);
    wgmma_commit();
    passTurn();
    ws_row_steps<PINGPONG, ST, SPANS>(c, count, ring, st, phase, at.spanPhases, lane0, o, m, l, s, p, takeTurn,
                                      passTurn, qRead, [&](float (&x)[SR], int stage) { c.issueScores(x, stage); });
    ws_last_output<ST>(c, ring, st, phase, lane0, o, p, takeTurn, passTurn);
    at.stage = st;
    at.phase = phase;
    at.advance();
}

// The persistent forwards' ring of rows (HandRing, pipeline.cuh): a row read from the tables (RowRef), released by
// every consumer thread. A slot past the last row ends the consumers' loops.
using RowRing = HandRing<RowRef>;

// Warp-specialised (FlashAttention-3's structure) and persistent: a grid of at most one CTA per SM takes the `items`
// rows of the work order from a queue (next_work_item). Warpgroup 0 only loads (cp.async into the stages, each thread's
// copies arriving on the stage's mbarrier as they land; the consumers order those generic-proxy writes before their
// wgmma reads with a proxy fence after the wait) and takes the rows, handing each to the consumers through a
// two-entry ring in shared memory; warpgroups 1 and 2 only compute, each 64 q rows, with FlashAttention-3's
// intra-warpgroup overlap (S of tile i + 1 and P V of tile i in flight during the softmax). K and V have their own
// full/empty barriers, so Q K^T of a tile starts before its V has landed. The ring of K/V stages and the turns run on from one
// row to the next, so the next row's first K/V tiles load while this row's last ones are computed; each warpgroup's
// 64 rows of Q have their own full/empty barriers and are released after the row's last Q K^T, so the next row's Q
// lands during this row's last softmax, P V and output (written from the registers, writeOutput). PINGPONG: the two
// consumer warpgroups take turns issuing their matrix products (named barriers), so one warpgroup's softmax runs
// while the other's products occupy the tensor cores.
template <typename T, int D, bool PINGPONG, bool SPANS>
__device__ __forceinline__ void attention_fwd_wgmma_ws(SAW_FWD_PARAMS(T), const uint32_t* spans, int items, int* work) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using Cta = WgCta<T, D, WS_Q_FRAGS<D, PINGPONG>>;
    constexpr int BKV = Cta::BKV;
    constexpr int ST = WG_STAGES;
    constexpr int CONSUMER_WARPS = 8;
    constexpr int PRODUCERS = WG_THREADS / 2;

    extern __shared__ unsigned char smemRaw[];
    Cta c;
    KvRing<ST> ring;
    uint64_t* bars = reinterpret_cast<uint64_t*>(c.place(smemRaw));
    ring.place(bars);
    // QB Q buffers, a row's in buffer (its index among the rows with tiles) % QB; per consumer warpgroup w and buffer
    // b: its 64 rows of Q landed (fullQ[QB w + b]) / read (emptyQ[QB w + b])
    constexpr int QB = WS_Q_BUFFERS<D, PINGPONG>;
    uint64_t* fullQ = bars + 4 * ST;
    uint64_t* emptyQ = fullQ + 2 * QB;
    // SPANS: the ST fullS barriers, and after the row ring each stage's PARTIAL tile's row spans (16-byte aligned)
    constexpr int SPAN_STORES = Cta::SPAN_WORDS / 4;  // producer threads that copy a tile's spans, 16 bytes each
    if constexpr (SPANS) ring.fullS = emptyQ + 2 * QB;
    RowRing rows;
    unsigned char* end = rows.place(emptyQ + 2 * QB + (SPANS ? ST : 0));
    if constexpr (SPANS) {
        c.sSpans = reinterpret_cast<uint32_t*>(end + ((16u - (smem_u32(end) & 15u)) & 15u));
        end = reinterpret_cast<unsigned char*>(c.sSpans + ST * Cta::SPAN_WORDS);
    }
    const uint32_t endAddr = smem_u32(end);
    T* sQ2 = reinterpret_cast<T*>(end + (((endAddr + 1023u) & ~1023u) - endAddr));  // 1024-aligned, as sQ (QB = 2)
    const uint32_t qOther = smem_u32(sQ2) - smem_u32(c.sQ);
    if (threadIdx.x == 0) {
        ring.init(PRODUCERS, CONSUMER_WARPS);
        for (int q = 0; q < 2 * QB; ++q) {
            mbar_init(fullQ + q, PRODUCERS);
            mbar_init(emptyQ + q, WG_THREADS / 2);
        }
        rows.init(WG_THREADS);  // every consumer thread releases a row
        if constexpr (SPANS) {
            for (int st = 0; st < ST; ++st) mbar_init(ring.fullS + st, SPAN_STORES);
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (threadIdx.x < PRODUCERS) {
        // producer: per row, K(0) into its stage once released, then each warpgroup's Q rows once that warpgroup has
        // done its last Q K^T of the previous row, then V(0), K(1), V(1), ... each once its stage is released
        regs_dealloc<WS_PRODUCER_REGS>();
        const int pt = threadIdx.x;
        RingAt<ST> at;
        int loaded = 0;       // tiles loaded so far: stages are waited for from the ring's second round on
        uint32_t qLoads = 0;  // rows whose Q was loaded
        for (int j = 0;; ++j) {
            // thread 0 takes the row, reads it from the tables and hands it to the consumers; the named barrier hands
            // it to the other producers (and keeps thread 0 from overwriting entry j % 2 before they have read it)
            if (pt == 0) {
                const int slot = next_work_item(work);
                rows.hand(j, slot < items ? row_ref(order, variantOf, rowPtr, rowPartial, nq, slot) : RowRef{slot, 0, 0, 0, 0});
            }
            named_sync(5, PRODUCERS);
            const RowRef row = rows.entry[j & 1];
            if (row.slot >= items) break;
            const T* Qh = c.bindRow(Q, K, V, kvIdx, maskIdx, bits, H, Hkv, Sq, Skv, nq, scale, softcap, row);
            for (int i = 0; i < c.count; ++i, ++loaded) {
                // SPANS: a PARTIAL tile's spans go through registers and an ordinary shared store released on fullS
                // (an arrive the sanitizer's race check follows; a cp.async completing on fullK it does not); their
                // loads are issued before the stage is free
                const bool spanStore = SPANS && pt < SPAN_STORES && i < c.partials;
                uint4 tileSpans;
                if (spanStore) {
                    tileSpans = __ldg(reinterpret_cast<const uint4*>(spans + (size_t)__ldg(maskIdx + c.begin + i) *
                                                                             Cta::SPAN_WORDS) + pt);
                }
                if (loaded >= ST) mbar_wait(ring.emptyK + at.stage, at.phase ^ 1u);
                c.produceKv(c.sK + at.stage * BKV * D, c.Kh, i, pt);
                mbar_arrive_cp_async(ring.fullK + at.stage);
                if (spanStore) {
                    reinterpret_cast<uint4*>(c.sSpans + at.stage * Cta::SPAN_WORDS)[pt] = tileSpans;
                    mbar_arrive(ring.fullS + at.stage);
                }
                if (i == 0) {
                    const int b = qLoads % QB;
                    T* q = b == 0 ? c.sQ : sQ2;
                    for (int w = 0; w < 2; ++w) {
                        if (qLoads >= QB) mbar_wait(emptyQ + QB * w + b, (qLoads / QB - 1) & 1);
                        load_rows_by_column<typename Cta::QTile, 64, D, PRODUCERS>(q + w * 64 * 64, Qh, c.q0 + w * 64, Sq,
                                                                                   pt);
                        mbar_arrive_cp_async(fullQ + QB * w + b);
                    }
                    ++qLoads;
                }
                if (loaded >= ST) mbar_wait(ring.emptyV + at.stage, at.phase ^ 1u);
                c.produceKv(c.sV + at.stage * BKV * D, c.Vh, i, pt);
                mbar_arrive_cp_async(ring.fullV + at.stage);
                at.advance();
            }
        }
        if (pt == 0) work_items_done(work);
        cp_async_wait<0>();
        return;
    }
    regs_alloc<WS_CONSUMER_REGS>();
    const int ct = threadIdx.x - PRODUCERS;
    // D = 128: broadcast from lane 0, so that the compiler knows the warpgroup index is warp-uniform (as BwdWg::seat
    // does at D = 64); level or lost at D = 64 (H100, 2026-12-06)
    const int cw = D == 128 ? __shfl_sync(0xffffffffu, ct >> 7, 0) : ct >> 7;
    c.seat(cw, ct);
    const bool lane0 = (ct & 31) == 0;
    // named barrier 1 + w: warpgroup w's turn to issue; 256 = its 128 waiting threads + the other's 128 arriving.
    // The turns alternate strictly over all the CTA's rows (both warpgroups walk the same rows), warpgroup 0 first.
    auto takeTurn = [&]() {
        if (PINGPONG) named_sync(1 + cw, WG_THREADS);
    };
    auto passTurn = [&]() {
        if (PINGPONG) named_arrive(1 + (cw ^ 1), WG_THREADS);
    };
    int qBuf = 0;  // the Q buffer of the row being computed
    // every thread releases Q itself: at D = 64 (ws) it reads Q with ldmatrix, and racecheck does not follow a lane's
    // read through __syncwarp to lane 0's arrival
    auto qRead = [&]() { mbar_arrive(emptyQ + QB * cw + qBuf); };
    // with all of Q in registers its buffer is released as soon as the fragments are loaded, not after the last Q K^T
    constexpr bool Q_IN_REGS = Cta::Q_FRAGS == D / 16;
    auto qReadAfterScores = [&]() {
        if constexpr (!Q_IN_REGS) qRead();
    };
    if (PINGPONG && cw == 1) named_arrive(1, WG_THREADS);

    static_assert(QB == 1 || Cta::Q_FRAGS == 0, "the pipeline across rows reads Q from its two shared-memory buffers");
    if constexpr (QB == 2) {
        // The rows run as one pipeline: a row's last P V is issued together with the next row's first Q K^T (one turn),
        // and its output is written while that Q K^T runs, so a row's end and the next one's start overlap the tensor
        // cores' work instead of following it.
        RingAt<ST> at;        // stage of the next tile to compute
        uint32_t qLoads = 0;  // rows whose Q was waited for
        float o[Cta::OR];
        float m[2];
        float l[2];
        float s[Cta::SR];
        uint32_t p[BKV / 16][4];
        bool pending = false;  // the previous row's last P V is still to issue: its P in p, its (m, l, O) here
        int st = 0;            // stage (and phase) of that last tile
        uint32_t phase = 0;
        // a row's binding and its softmax state and O from zero (O, m and l of the previous row have been written)
        auto startRow = [&](const RowRef& row) {
            c.bindRow(Q, K, V, kvIdx, maskIdx, bits, H, Hkv, Sq, Skv, nq, scale, softcap, row);
            m[0] = m[1] = -INFINITY;
            l[0] = l[1] = 0.f;
#pragma unroll
            for (int i = 0; i < Cta::OR; ++i) o[i] = 0.f;
        };
        for (int j = 0;; ++j) {
            const RowRef row = rows.template take<D == 128>(j);
            const bool starts = row.slot < items && row.count > 0;
            if (pending && !starts) {  // the previous row's last P V alone: no next row, or one without tiles
                ws_last_output<ST>(c, ring, st, phase, lane0, o, p, takeTurn, passTurn);
                c.writeOutput(o, m, l, O, LSE, Sq);
                pending = false;
            }
            if (row.slot >= items) break;
            if (!starts) {  // a row without tiles: zeros and LSE -inf
                startRow(row);
                c.writeOutput(o, m, l, O, LSE, Sq);
                continue;
            }
            const int nextBuf = qLoads & 1;
            const uint32_t nextOffset = nextBuf ? qOther : 0u;
            mbar_wait(fullQ + QB * cw + nextBuf, (qLoads >> 1) & 1);
            ++qLoads;
            mbar_wait(ring.fullK + at.stage, at.phase);
            if (pending) {
                // the previous row's last P V and this row's first Q K^T in one turn; its output while Q K^T runs
                mbar_wait(ring.fullV + st, phase);
                fence_proxy_async();
                takeTurn();
                fence_regs(o);
                wgmma_fence();
                c.issueOutput(o, p, st);
                wgmma_commit();
                c.issueScores(s, at.stage, nextOffset);
                wgmma_commit();
                passTurn();
                wgmma_wait<1>();
                fence_regs(o);
                warp_arrive(ring.emptyV + st, lane0);
                c.writeOutput(o, m, l, O, LSE, Sq);
            } else {
                fence_proxy_async();
                takeTurn();
                wgmma_fence();
                c.issueScores(s, at.stage, nextOffset);
                wgmma_commit();
                passTurn();
            }
            pending = true;
            qBuf = nextBuf;
            startRow(row);
            st = at.stage;
            phase = at.phase;
            ws_row_steps<PINGPONG, ST, SPANS>(c, row.count, ring, st, phase, at.spanPhases, lane0, o, m, l, s, p,
                                              takeTurn, passTurn, qRead, [&](float (&x)[Cta::SR], int stage) {
                                                  c.issueScores(x, stage, nextOffset);
                                              });
            at.stage = st;
            at.phase = phase;
            at.advance();
        }
    } else {
        RingAt<ST> at;
        uint32_t qLoads = 0;
        for (int j = 0;; ++j) {
            const RowRef row = rows.template take<D == 128>(j);
            if (row.slot >= items) break;
            c.bindRow(Q, K, V, kvIdx, maskIdx, bits, H, Hkv, Sq, Skv, nq, scale, softcap, row);
            float o[Cta::OR];
            float m[2] = {-INFINITY, -INFINITY};
            float l[2] = {0.f, 0.f};
            float s[Cta::SR];
            uint32_t p[BKV / 16][4];
#pragma unroll
            for (int i = 0; i < Cta::OR; ++i) o[i] = 0.f;
            if (c.count > 0) {
                mbar_wait(fullQ + cw, qLoads & 1);
                ++qLoads;
                c.loadQFragments();
                if constexpr (Q_IN_REGS) qRead();
                ws_consume<PINGPONG, ST, SPANS>(c, c.count, ring, at, lane0, o, m, l, s, p, takeTurn, passTurn,
                                                qReadAfterScores);
            }
            c.writeOutput(o, m, l, O, LSE, Sq);
        }
    }
    if (PINGPONG && cw == 0) named_sync(1, WG_THREADS);  // takes warpgroup 1's last pass: the counts balance
#else
    __trap();
#endif
}

}  // namespace saw

// One extern "C" entry point with the forward kernels' arguments, calling FN<T, D, FLAG> (THREADS per CTA, CTAS CTAs
// per SM in its launch bounds): the 64-row forwards of attention_fwd_wgmma_d256.cu
#define SAW_FWD_HOPPER_CTAS(NAME, FN, THREADS, CTAS, T, D, FLAG)                                                \
    extern "C" __global__ void __launch_bounds__(THREADS, CTAS) NAME(                                           \
        const T* Q, const T* K, const T* V, T* O, float* LSE, const int* order, const int* variantOf,          \
        const int* rowPtr, const int* rowPartial, const int* kvIdx, const int* maskIdx, const uint32_t* bits,   \
        int H, int Hkv, int Sq, int Skv, int nq, float scale, float softcap) {                                  \
        FN<T, D, FLAG>(Q, K, V, O, LSE, order, variantOf, rowPtr, rowPartial, kvIdx, maskIdx, bits, H, Hkv, Sq, \
                       Skv, nq, scale, softcap);                                                                 \
    }
// the persistent warp-specialised forwards: the forward's parameters, the bit tiles' row spans (read by the SPANS
// kernels, `_spans`, which mask PARTIAL tiles by them; the others mask by the bit tiles), then the rows of the work
// order and the work queue's two counters (the grid is at most one CTA per SM)
#define SAW_FWD_WGMMA_WS(NAME, T, D, PINGPONG, SPANS)                                                              \
    extern "C" __global__ void __launch_bounds__(saw::WS_THREADS, 1) NAME(SAW_FWD_PARAMS(T), const uint32_t* spans, \
                                                                          int items, int* work) {                  \
        saw::attention_fwd_wgmma_ws<T, D, PINGPONG, SPANS>(Q, K, V, O, LSE, order, variantOf, rowPtr, rowPartial,    \
                                                           kvIdx, maskIdx, bits, H, Hkv, Sq, Skv, nq, scale, softcap, \
                                                           spans, items, work);                                   \
    }

SAW_FWD_WGMMA_WS(fwd_wgmmaws_bf16_d64_q128_kv128, __nv_bfloat16, 64, false, false)
SAW_FWD_WGMMA_WS(fwd_wgmmaws_bf16_d64_q128_kv128_spans, __nv_bfloat16, 64, false, true)
SAW_FWD_WGMMA_WS(fwd_wgmmaws_bf16_d128_q128_kv128, __nv_bfloat16, 128, false, false)
SAW_FWD_WGMMA_WS(fwd_wgmmaws_bf16_d128_q128_kv128_spans, __nv_bfloat16, 128, false, true)
SAW_FWD_WGMMA_WS(fwd_wgmmaws_fp16_d64_q128_kv128, __half, 64, false, false)
SAW_FWD_WGMMA_WS(fwd_wgmmaws_fp16_d64_q128_kv128_spans, __half, 64, false, true)
SAW_FWD_WGMMA_WS(fwd_wgmmaws_fp16_d128_q128_kv128, __half, 128, false, false)
SAW_FWD_WGMMA_WS(fwd_wgmmaws_fp16_d128_q128_kv128_spans, __half, 128, false, true)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_bf16_d64_q128_kv128, __nv_bfloat16, 64, true, false)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_bf16_d64_q128_kv128_spans, __nv_bfloat16, 64, true, true)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_bf16_d128_q128_kv128, __nv_bfloat16, 128, true, false)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_bf16_d128_q128_kv128_spans, __nv_bfloat16, 128, true, true)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_fp16_d64_q128_kv128, __half, 64, true, false)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_fp16_d64_q128_kv128_spans, __half, 64, true, true)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_fp16_d128_q128_kv128, __half, 128, true, false)
SAW_FWD_WGMMA_WS(fwd_wgmmapp_fp16_d128_q128_kv128_spans, __half, 128, true, true)
