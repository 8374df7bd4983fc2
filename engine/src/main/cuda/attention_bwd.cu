// Block-sparse attention backward, FlashAttention-2 shape:
//   bwd_pre_*   Dsum = rowsum(dO * O), fp32, one warp per query row
//   bwd_*       one CTA per (kv-tile, kv-head, batch): K and V stay in shared memory, dK and dV accumulate in
//               registers over every head of the GQA group and every q-tile of the transposed layout column
//               (PARTIAL tiles first, then FULL ones), in q steps of 64 rows; dQ is added with fp32 atomics.
//               At D = 256 the outputs' head dim is split over two CTAs per (kv-tile, kv-head, batch) (Split):
//               each recomputes S and dP over all of D and accumulates its half of the columns of dK, dV and dQ,
//               in q steps of 32 rows (docs/kernel-notes.md, issue 13)
//   bwd_dq_*    dQ = scale * dQacc, converted to the element type
//   bwd_dq_perm_*  the same from the accumulator the Hopper backwards that add dQ tiles write (warp-specialised, and
//               head dim 256), whose rows hold their columns in the order the tiles store them (the permuted dQ layout); one
//               thread per 16 values
//
// Column tables (transposed layout, built on the host by saw.engine.attention.TileLists):
//   order[n]            launch entries (TileLists.colLaunch): e >= 0 is work item e = (b * Hkv + hkv) * nkv + kvBlock,
//                       whole; e < 0 is part p = ~e of a split item, whose dK and dV go to fp32 slot p of dkvParts
//   parts[3P]           part p: its item, and the first and end entry of its share of the item's lists taken one
//                       after the other over the GQA group's heads
//   dkvParts[P][2][BKV][D]  the parts' fp32 dK (already scaled) and dV, added into dK and dV by bwd_parts_*
//   variantOf[B*H]      mask variant of each (b, h)
//   colPtr[V*nkv + 1]   q-tiles of column (variant, kvBlock) are [colPtr[c], colPtr[c + 1]) of qIdx / maskIdx
//   colPartial[V*nkv]   how many of those (the first ones) are PARTIAL
//   bitsT[]             bit tile m transposed: BKV rows (kv) of BQ/32 words (q)

#include "tile.cuh"

// The backward kernels' arguments (the column tables above, in the order the host passes them), as the device
// functions behind the entry points of every backward family take them
#define SAW_BWD_PARAMS(T)                                                                                           \
    const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V, const T* __restrict__ dO,            \
    const float* __restrict__ LSE, const float* __restrict__ Dsum, float* __restrict__ dQacc,                       \
    T* __restrict__ dK, T* __restrict__ dV, float* __restrict__ dkvParts, const int* __restrict__ order,            \
    const int* __restrict__ parts, const int* __restrict__ variantOf, const int* __restrict__ colPtr,               \
    const int* __restrict__ colPartial, const int* __restrict__ qIdx, const int* __restrict__ maskIdx,              \
    const uint32_t* __restrict__ bitsT, int H, int Hkv, int Sq, int Skv, int nkv, float scale, float softcap

namespace saw {

template <typename T, int D>
__device__ __forceinline__ void attention_bwd_pre(const T* __restrict__ O, const T* __restrict__ dO,
                                                  float* __restrict__ Dsum, long long rows) {
    const long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (r >= rows) return;
    const int lane = threadIdx.x & 31;
    constexpr int PER = D / 32;  // elements per lane, 2 or 4
    const T* o = O + r * D + lane * PER;
    const T* d = dO + r * D + lane * PER;
    float acc = 0.f;
#pragma unroll
    for (int x = 0; x < PER; x += 2) {
        float2 a = Elem<T>::unpack(*reinterpret_cast<const uint32_t*>(o + x));
        float2 c = Elem<T>::unpack(*reinterpret_cast<const uint32_t*>(d + x));
        acc += a.x * c.x + a.y * c.y;
    }
#pragma unroll
    for (int s = 16; s > 0; s >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, s);
    if (lane == 0) Dsum[r] = acc;
}

// The permuted dQ layout: where the Hopper backwards that add dQ tiles keep column c of q row q in their dQ
// accumulator (store_dq_perm below): each 64-column block in groups of 16, c = 16 kp + 8 hi + 2 t + e stored at
// 16 (kp ^ (q & 1)) + 4 t + 2 hi + e, so that a thread stores its four values of a group and row as one 16-byte vector
// and the two rows of a quarter-warp land on opposite halves of the banks. Rows stay whole (the bulk reduce-add clips
// them at Sq). bwd_dq_perm_* undoes it (attention_bwd_dq_perm_groups).

// The store side of the permuted dQ layout: this thread's m64nNk16 dQ accumulator (accumulator i: row row0 + 8 ((i / 2) % 2),
// column 8 (i / 4) + 2t + i % 2) into a tile whose rows are `stride` floats apart, four values of a row and 16-column
// group as one 16-byte store. A tile starts at an even q row, so row0's parity is its q rows'.
// EXPLICIT: explicit 16-byte stores from two base addresses (nvcc 13 splits the generic float4 stores of the first row
// into four 4-byte ones); won in the D = 64 warp-specialised backward, level or lost elsewhere (H100, 2026-12-06).
template <int N, bool EXPLICIT = false>
__device__ __forceinline__ void store_dq_perm(float* tile, int stride, const float (&dq)[N / 2], int row0, int t) {
    const int flip = row0 & 1;
    // group kp of 16 columns goes to kp ^ flip: kp + flip for even kp, kp - flip for odd
    const uint32_t first = smem_u32(tile) + 4u * (uint32_t)(row0 * stride + 4 * t);
    const uint32_t even = first + 64u * (uint32_t)flip;
    const uint32_t odd = first + 64u * (uint32_t)(1 - flip);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
        for (int j = 0; j < N / 64; ++j) {
#pragma unroll
            for (int kp = 0; kp < 4; ++kp) {
                const int i = 32 * j + 8 * kp + 2 * r;
                if constexpr (EXPLICIT) {
                    st_shared_v4f32((kp & 1 ? odd : even) + 4u * (uint32_t)(8 * r * stride + 64 * j + 16 * (kp & 2)),
                                    dq[i], dq[i + 1], dq[i + 4], dq[i + 5]);
                } else {
                    *reinterpret_cast<float4*>(tile + (row0 + 8 * r) * stride + 4 * t + 64 * j + 16 * (kp ^ flip)) =
                        make_float4(dq[i], dq[i + 1], dq[i + 4], dq[i + 5]);
                }
            }
        }
    }
}

// One thread per stored 16-column group g of a row: its four 16-byte loads hold, as float4 t, columns 2t, 2t + 1
// (x, y) and 8 + 2t, 9 + 2t (z, w) of output group kp = g ^ (q & 1) (the permuted dQ layout), written as two 16-byte stores.
// D at compile time: a row and its group come from the thread index by shifts, and q = row % Sq once per 16 values
// (a thread per pair, with two 64-bit divisions each, issued more than it moved).
template <typename T, int D>
__device__ __forceinline__ void attention_bwd_dq_perm_groups(const float* __restrict__ acc, T* __restrict__ dQ,
                                                             long long groups, float scale, int Sq) {
    constexpr int PER_ROW = D / 16;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= groups) return;
    const long long row = i / PER_ROW;
    const int g = (int)(i % PER_ROW);
    const int kp = (g & 3) ^ (int)((row % Sq) & 1);
    const float4* src = reinterpret_cast<const float4*>(acc + row * D + 16 * g);
    uint32_t lo[4], hi[4];
#pragma unroll
    for (int t = 0; t < 4; ++t) {
        const float4 v = src[t];
        lo[t] = Elem<T>::pack(v.x * scale, v.y * scale);
        hi[t] = Elem<T>::pack(v.z * scale, v.w * scale);
    }
    T* out = dQ + row * D + 16 * (g & ~3) + 16 * kp;
    *reinterpret_cast<uint4*>(out) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
    *reinterpret_cast<uint4*>(out + 8) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
}

template <typename T>
__device__ __forceinline__ void attention_bwd_dq_perm(const float* __restrict__ acc, T* __restrict__ dQ, long long n,
                                                      float scale, int Sq, int D) {
    switch (D) {
        case 64: attention_bwd_dq_perm_groups<T, 64>(acc, dQ, n / 16, scale, Sq); break;
        case 128: attention_bwd_dq_perm_groups<T, 128>(acc, dQ, n / 16, scale, Sq); break;
        default: attention_bwd_dq_perm_groups<T, 256>(acc, dQ, n / 16, scale, Sq); break;
    }
}

template <typename T>
__device__ __forceinline__ void attention_bwd_dq(const float* __restrict__ acc, T* __restrict__ dQ, long long n,
                                                 float scale) {
    const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 2;
    if (i >= n) return;  // n is even: D is
    float2 v = *reinterpret_cast<const float2*>(acc + i);
    *reinterpret_cast<uint32_t*>(dQ + i) = Elem<T>::pack(v.x * scale, v.y * scale);
}

#if __CUDA_ARCH__ >= 900
// 16 bytes added to global memory with an L2 eviction policy (l2_evict_first / l2_evict_last)
__device__ __forceinline__ void red_add4(float* at, float4 v, uint64_t policy) {
    asm volatile("red.global.add.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;\n" ::"l"(at), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w), "l"(policy)
                 : "memory");
}
#endif

// Adds two n8 blocks of an mma accumulator row to global memory: the lane with quad index t holds (a0, a1) at
// columns 2t, 2t+1 of the first block and (b0, b1) at the same columns of the second (dst points at the first).
// Lanes t and t^1 swap halves so that each adds 4 consecutive floats: one 16-byte vector reduction on Hopper,
// where the vector reductions halved the backward time spent on dQ (docs/kernel-notes.md).
// POLICY: the add with the L2 eviction policy `policy` (Hopper; elsewhere without).
template <bool POLICY = false>
__device__ __forceinline__ void add4_pair(float* dst, float a0, float a1, float b0, float b1, int t, bool valid,
                                          uint64_t policy = 0) {
    const bool odd = t & 1;
    const float r0 = __shfl_xor_sync(0xffffffffu, odd ? a0 : b0, 1);
    const float r1 = __shfl_xor_sync(0xffffffffu, odd ? a1 : b1, 1);
    if (!valid) return;
    float4 v = odd ? make_float4(r0, r1, b0, b1) : make_float4(a0, a1, r0, r1);
    float* at = odd ? dst + 8 + 2 * (t - 1) : dst + 2 * t;
#if __CUDA_ARCH__ >= 900
    if constexpr (POLICY) {
        red_add4(at, v, policy);
    } else {
        atomicAdd(reinterpret_cast<float4*>(at), v);
    }
#else
    atomicAdd(at, v.x);
    atomicAdd(at + 1, v.y);
    atomicAdd(at + 2, v.z);
    atomicAdd(at + 3, v.w);
#endif
}

// The position of one step of a CTA's walk: head of the group, entry of that head's column list, q sub-step.
struct BwdCursor {
    int hi;     // head within the GQA group
    int e;      // entry in the column list
    int end;    // end of this head's column list
    int first;  // first entry of this head's list (entries before first + partials are PARTIAL)
    int partials;
    int sub;  // 64-row step within the q-tile
};

// The column lists a CTA walks: those of column kb for every head of kv-head hkv's GQA group, in order, or for a
// part (slot >= 0) entries [begin, begin + count) of them taken one after the other.
struct BwdColumns {
    const int* variantOf;
    const int* colPtr;
    const int* colPartial;
    int b, H, hkv, group, nkv, kb;
    int begin, count, slot;  // count -1 and slot -1: the whole item

    // the lists of launch entry `entry` (see the header's order[] and parts[])
    static __device__ __forceinline__ BwdColumns of(int entry, const int* parts, const int* variantOf,
                                                    const int* colPtr, const int* colPartial, int H, int Hkv,
                                                    int nkv) {
        int item = entry, begin = 0, count = -1, slot = -1;
        if (entry < 0) {
            slot = ~entry;
            item = parts[3 * slot];
            begin = parts[3 * slot + 1];
            count = parts[3 * slot + 2] - begin;
        }
        const int kb = item % nkv;
        const int bkvh = item / nkv;
        const int hkv = bkvh % Hkv;
        return BwdColumns{variantOf, colPtr, colPartial, bkvh / Hkv, H, hkv, H / Hkv, nkv, kb, begin, count, slot};
    }

    __device__ __forceinline__ int column(int hi) const { return variantOf[b * H + hkv * group + hi] * nkv + kb; }

    // moves c past the heads whose lists it has finished (or, from hi = -1, to the first nonempty list)
    __device__ __forceinline__ void nextHead(BwdCursor& c) const {
        while (c.e == c.end && ++c.hi < group) {
            const int col = column(c.hi);
            c.first = colPtr[col];
            c.e = c.first;
            c.end = colPtr[col + 1];
            c.partials = colPartial[col];
        }
    }

    __device__ __forceinline__ BwdCursor start() const {
        BwdCursor c;
        c.hi = -1;
        c.e = 0;
        c.end = 0;
        c.sub = 0;
        nextHead(c);
        for (int skip = begin; skip > 0;) {  // a part starts `begin` entries into the lists
            const int left = c.end - c.e;
            if (skip < left) {
                c.e += skip;
                break;
            }
            skip -= left;
            c.e = c.end;
            nextHead(c);
        }
        return c;
    }

    // the cursor's next step of SUBS per q-tile
    template <int SUBS>
    __device__ __forceinline__ BwdCursor next(BwdCursor c) const {
        if (++c.sub == SUBS) {
            c.sub = 0;
            ++c.e;
            nextHead(c);
        }
        return c;
    }

    // q steps in all the lists (in the part's share of them)
    __device__ __forceinline__ int steps(int subs) const {
        if (count >= 0) return count * subs;
        int n = 0;
        for (int hi = 0; hi < group; ++hi) {
            const int col = column(hi);
            n += (colPtr[col + 1] - colPtr[col]) * subs;
        }
        return n;
    }
};

// LSE and Dsum of q rows [q0, q0 + QS) of (batch, head) row bh into shared memory; rows past Sq read as 0.
template <int QS, int THREADS>
__device__ __forceinline__ void load_row_stats(float* sLse, float* sDs, const float* LSE, const float* Dsum, size_t bh,
                                               int q0, int Sq, int tid) {
    for (int i = tid; i < QS; i += THREADS) {
        const bool valid = q0 + i < Sq;
        const size_t at = valid ? bh * Sq + q0 + i : 0;
        cp_async4(smem_u32(sLse + i), LSE + at, valid);
        cp_async4(smem_u32(sDs + i), Dsum + at, valid);
    }
}

// acc[NQ][4] = rows [r0, r0 + 16) of sA (a [*, D] tile) times the first NQ * 8 rows of sB (a [*, D] tile),
// transposed: one warp's m16 x (NQ * 8) block of A B^T, on the tensor cores. UNROLL k16 steps per loop trip (all
// by default; 4 = one group of 8 swizzled chunks, whose addresses are a base plus constants, so that a kernel
// short of registers does not keep an address per step).
template <typename T, int D, int NQ, int UNROLL = D / 16>
__device__ __forceinline__ void warp_abt(float (&acc)[NQ][4], const T* sA, const T* sB, int r0, int lane) {
#pragma unroll
    for (int n = 0; n < NQ; ++n) {
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[n][e] = 0.f;
    }
#pragma unroll UNROLL
    for (int kc = 0; kc < D / 16; ++kc) {
        uint32_t a[4];
        ldmatrix_x4(a, addr_a_order<D>(sA, r0, kc * 2, lane));
#pragma unroll
        for (int n2 = 0; n2 < NQ / 2; ++n2) {
            uint32_t b[4];
            ldmatrix_x4(b, addr_b_order<D>(sB, n2 * 16, kc * 2, lane));
            Elem<T>::mma(acc[2 * n2], a, b[0], b[1]);
            Elem<T>::mma(acc[2 * n2 + 1], a, b[2], b[3]);
        }
    }
}

// dS^T for this warp's 16 kv rows (NQ n8 blocks of q columns, in registers) stored to shared memory, a swizzled
// [*, QS] tile, for the dQ pass.
template <typename T, int QS, int NQ>
__device__ __forceinline__ void warp_store_dst(T* sdS, const float (&s)[NQ][4], int r0, int g, int t) {
#pragma unroll
    for (int n = 0; n < NQ; ++n) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            *reinterpret_cast<uint32_t*>(sdS + Swizzled<QS>::elem(r0 + g + 8 * r, n * 8 + 2 * t)) =
                Elem<T>::pack(s[n][2 * r], s[n][2 * r + 1]);
        }
    }
}

// acc += S B for this warp's 16 rows: S its fp32 fragments (NK n8 blocks over K columns, in registers) packed to T as
// the A operand, B a [K, D] tile in shared memory read transposed, of which the first DO columns (all by default;
// pass sB + 64 * j to read columns from 64 * j on: the swizzle permutes chunks only within groups of 8).
// PANEL_ROWS > 0: B lies as D / 64 panels of PANEL_ROWS x 64 elements, each in Swizzled<64>'s layout (what the bulk
// tensor copies write), instead of row-major rows of D.
// dV += P^T dO, dK += dS^T Q, and NSA's O += P V.
template <typename T, int D, int K, int NK, int DO = D, int PANEL_ROWS = 0>
__device__ __forceinline__ void warp_sb_add(float (&acc)[DO / 8][4], const float (&s)[NK][4], const T* sB, int lane) {
    constexpr int DB = DO / 8;
#pragma unroll
    for (int kc = 0; kc < K / 16; ++kc) {
        uint32_t a[4];
        a[0] = Elem<T>::pack(s[2 * kc][0], s[2 * kc][1]);
        a[1] = Elem<T>::pack(s[2 * kc][2], s[2 * kc][3]);
        a[2] = Elem<T>::pack(s[2 * kc + 1][0], s[2 * kc + 1][1]);
        a[3] = Elem<T>::pack(s[2 * kc + 1][2], s[2 * kc + 1][3]);
#pragma unroll
        for (int d2 = 0; d2 < DB / 2; ++d2) {
            uint32_t b[4];
            if constexpr (PANEL_ROWS == 0) {
                ldmatrix_x4_trans(b, addr_a_order<D>(sB, kc * 16, d2 * 2, lane));
            } else {
                ldmatrix_x4_trans(b, addr_a_order<64>(sB + (d2 / 4) * PANEL_ROWS * 64, kc * 16, (d2 % 4) * 2, lane));
            }
            Elem<T>::mma(acc[2 * d2], a, b[0], b[1]);
            Elem<T>::mma(acc[2 * d2 + 1], a, b[2], b[3]);
        }
    }
}

// dS^T = P^T (dP^T - Dsum) (1 - tanh^2), in place of P^T in s: this warp's 16 kv rows by NQ n8 blocks of q
// columns, with dsum the step's Dsum (one per q column) and dcap the softcap factors (unused unless CAPPED)
template <bool CAPPED, int NQ>
__device__ __forceinline__ void warp_ds_t(float (&s)[NQ][4], const float (&dp)[NQ][4],
                                          const float (&dcap)[CAPPED ? NQ : 1][4], const float* dsum, int t) {
#pragma unroll
    for (int n = 0; n < NQ; ++n) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            s[n][e] *= dp[n][e] - dsum[n * 8 + 2 * t + (e & 1)];
            if constexpr (CAPPED) s[n][e] *= dcap[n][e];
        }
    }
}

// How the backward covers head dim D (KernelCatalog mirrors it). Up to D = 128 one CTA per kv tile accumulates dK
// and dV over all of D: D / 2 registers each per thread, 128 in all at D = 128. At D = 256 that would be 256, so
// SPLIT = 2 CTAs share a kv tile, each recomputing S^T and dP^T over all of D (the reductions) and accumulating only
// its DO = D / 2 columns of dK, dV and dQ (no output is written twice); and the q step shrinks to QS = 32 rows, which
// halves the score and dP fragments (16 registers each), keeps the Q and dO stages at 16 KB, and so leaves room
// for two stages on sm_80 as well. dS^T is kept in a [BKV, 64] swizzled tile (QS columns of it used).
template <int D>
struct BwdSplit {
    static constexpr int SPLIT = D > 128 ? 2 : 1;
    static constexpr int QS = D > 128 ? 32 : 64;
    static constexpr int DO = D / SPLIT;
    static constexpr int DS_COLS = 64;
    static constexpr int ABT_UNROLL = D > 128 ? 4 : D / 16;  // warp_abt's unroll
};

template <typename T, int D, int BQ, int BKV, bool CAPPED>
__device__ __forceinline__ void attention_bwd(SAW_BWD_PARAMS(T)) {
    constexpr int QS = BwdSplit<D>::QS;  // q rows per step
    constexpr int DO = BwdSplit<D>::DO;  // columns of dK, dV and dQ this CTA adds
    constexpr int DS_COLS = BwdSplit<D>::DS_COLS;
    constexpr int ABT_UNROLL = BwdSplit<D>::ABT_UNROLL;
    constexpr int SUBS = BQ / QS;
    constexpr int WARPS = BKV / 16;
    constexpr int THREADS = WARPS * 32;
    constexpr int NQ = QS / 8;  // n8 blocks of a transposed score row
    constexpr int DB = DO / 8;
    constexpr int WORDS = BQ / 32;
    constexpr int DQ_UNITS = (QS / 16) * (DO / 32);  // 16 x 32 pieces of a dQ step
    static_assert(QS % 32 == 0 && QS <= DS_COLS && BQ % QS == 0, "a step covers whole bit words of the q tile");

    extern __shared__ __align__(128) unsigned char smem[];
    T* sK = reinterpret_cast<T*>(smem);
    T* sV = sK + BKV * D;
    T* sQ = sV + BKV * D;          // 2 stages of QS x D
    T* sdO = sQ + 2 * QS * D;      // 2 stages of QS x D
    T* sdS = sdO + 2 * QS * D;     // BKV x DS_COLS, dS transposed (QS columns used)
    float* sLse = reinterpret_cast<float*>(sdS + BKV * DS_COLS);  // 2 stages of QS
    float* sDs = sLse + 2 * QS;                                // 2 stages of QS

    const int tid = threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int g = lane >> 2;
    const int t = lane & 3;

    // SPLIT neighbouring CTAs share a work item; this one owns output columns [c0, c0 + DO). A multiple of 64 columns
    // (8 chunks) as an element offset of a swizzled tile's base keeps the swizzle's chunk pattern a constant.
    constexpr int SPLIT = BwdSplit<D>::SPLIT;
    static_assert(SPLIT == 1 || DO % 64 == 0, "a column half starts on a whole group of 8 swizzled chunks");
    const int c0 = SPLIT == 1 ? 0 : (int)(blockIdx.x % SPLIT) * DO;
    const BwdColumns cols = BwdColumns::of(order[blockIdx.x / SPLIT], parts, variantOf, colPtr, colPartial, H, Hkv, nkv);
    const int b = cols.b;
    const int hkv = cols.hkv;
    const int group = cols.group;
    const int kv0 = cols.kb * BKV;

    const float sl2 = CAPPED ? LOG2E : scale * LOG2E;
    const float capIn = CAPPED ? scale / softcap : 0.f;

    BwdCursor cur = cols.start();
    const int steps = cols.steps(SUBS);

    auto loadStep = [&](const BwdCursor& c, int stage) {
        const int h = hkv * group + c.hi;
        const size_t bh = (size_t)b * H + h;
        const int q0 = qIdx[c.e] * BQ + c.sub * QS;
        load_tile<QS, D, THREADS>(sQ + stage * QS * D, Q + bh * Sq * D, q0, Sq, tid);
        load_tile<QS, D, THREADS>(sdO + stage * QS * D, dO + bh * Sq * D, q0, Sq, tid);
        load_row_stats<QS, THREADS>(sLse + stage * QS, sDs + stage * QS, LSE, Dsum, bh, q0, Sq, tid);
    };

    const size_t kvHead = (size_t)(b * Hkv + hkv) * Skv * D;
    load_tile<BKV, D, THREADS>(sK, K + kvHead, kv0, Skv, tid);
    load_tile<BKV, D, THREADS>(sV, V + kvHead, kv0, Skv, tid);
    if (steps > 0) loadStep(cur, 0);
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

    const int r0 = warp * 16;  // this warp's kv rows within the tile
    for (int it = 0; it < steps; ++it) {
        const int stage = it & 1;
        const BwdCursor next = cols.next<SUBS>(cur);
        if (it + 1 < steps) loadStep(next, stage ^ 1);
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();

        const T* tQ = sQ + stage * QS * D;
        const T* tdO = sdO + stage * QS * D;
        const float* tLse = sLse + stage * QS;
        const float* tDs = sDs + stage * QS;
        const int h = hkv * group + cur.hi;
        const int qTile = qIdx[cur.e];
        const int q0 = qTile * BQ + cur.sub * QS;
        const bool partial = cur.e - cur.first < cur.partials;

        // S^T = K Q^T for this warp's 16 kv rows
        float s[NQ][4];
        warp_abt<T, D, NQ, ABT_UNROLL>(s, sK, tQ, r0, lane);
        // P^T = exp(logits - LSE); capped logits keep their derivative factor (1 - tanh^2) in s
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
                const float lse = tLse[n * 8 + 2 * t + (e & 1)];
                s[n][e] = exp2_approx(fmaf(z, sl2, -lse * LOG2E));
            }
        }
        if (partial) {
            const uint32_t* tileBits = bitsT + (size_t)maskIdx[cur.e] * BKV * WORDS;
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const uint32_t* rowBits = tileBits + (r0 + g + 8 * r) * WORDS + cur.sub * (QS / 32);
                const uint32_t w0 = __ldg(rowBits);
                const uint32_t w1 = QS > 32 ? __ldg(rowBits + 1) : 0u;
#pragma unroll
                for (int n = 0; n < NQ; ++n) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int j = n * 8 + 2 * t + e;
                        const uint32_t w = j < 32 ? w0 : w1;
                        if (!((w >> (j & 31)) & 1u)) s[n][2 * r + e] = 0.f;
                    }
                }
            }
        }
        // dV += P^T dO
        warp_sb_add<T, D, QS, NQ, DO>(dv, s, tdO + c0, lane);
        // dP^T = V dO^T
        float dp[NQ][4];
        warp_abt<T, D, NQ, ABT_UNROLL>(dp, sV, tdO, r0, lane);
        // dS^T, kept in s, also stored to shared memory for dQ
        warp_ds_t<CAPPED>(s, dp, dcap, tDs, t);
        warp_store_dst<T, DS_COLS, NQ>(sdS, s, r0, g, t);
        // dK += dS^T Q
        warp_sb_add<T, D, QS, NQ, DO>(dk, s, tQ + c0, lane);
        __syncthreads();
        // dQ += dS K, in 16 x 32 pieces spread over the warps, added to global fp32 with atomics
        float* dQh = dQacc + ((size_t)b * H + h) * Sq * D + c0;
        const T* sKc = sK + c0;
        for (int u = warp; u < DQ_UNITS; u += WARPS) {
            const int m0 = (u % (QS / 16)) * 16;
            const int d0 = (u / (QS / 16)) * 32;  // from c0
            float acc[4][4];
#pragma unroll
            for (int n = 0; n < 4; ++n) {
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[n][e] = 0.f;
            }
#pragma unroll
            for (int kc = 0; kc < BKV / 16; ++kc) {
                uint32_t a[4];
                ldmatrix_x4_trans(a, addr_b_order<DS_COLS>(sdS, kc * 16, m0 / 8, lane));
#pragma unroll
                for (int d2 = 0; d2 < 2; ++d2) {
                    uint32_t bk[4];
                    ldmatrix_x4_trans(bk, addr_a_order<D>(sKc, kc * 16, d0 / 8 + d2 * 2, lane));
                    Elem<T>::mma(acc[2 * d2], a, bk[0], bk[1]);
                    Elem<T>::mma(acc[2 * d2 + 1], a, bk[2], bk[3]);
                }
            }
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int q = q0 + m0 + g + 8 * r;
                float* dst = dQh + (size_t)q * D + d0;
#pragma unroll
                for (int np = 0; np < 2; ++np) {
                    add4_pair(dst + np * 16, acc[2 * np][2 * r], acc[2 * np][2 * r + 1], acc[2 * np + 1][2 * r],
                              acc[2 * np + 1][2 * r + 1], t, q < Sq);
                }
            }
        }
        __syncthreads();
        cur = next;
    }

    // epilogue: dK = scale * acc, dV = acc; a part's into its fp32 slot
    if (cols.slot >= 0) {
        float* pk = dkvParts + (size_t)cols.slot * 2 * BKV * D;
        float* pv = pk + BKV * D;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int at = (r0 + g + 8 * r) * D + c0 + 2 * t;
#pragma unroll
            for (int d = 0; d < DB; ++d) {
                *reinterpret_cast<float2*>(pk + at + d * 8) = make_float2(dk[d][2 * r] * scale, dk[d][2 * r + 1] * scale);
                *reinterpret_cast<float2*>(pv + at + d * 8) = make_float2(dv[d][2 * r], dv[d][2 * r + 1]);
            }
        }
        return;
    }
    const size_t base = kvHead;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int kv = kv0 + r0 + g + 8 * r;
        if (kv < Skv) {
            T* k = dK + base + (size_t)kv * D + c0 + 2 * t;
            T* v = dV + base + (size_t)kv * D + c0 + 2 * t;
#pragma unroll
            for (int d = 0; d < DB; ++d) {
                *reinterpret_cast<uint32_t*>(k + d * 8) = Elem<T>::pack(dk[d][2 * r] * scale, dk[d][2 * r + 1] * scale);
                *reinterpret_cast<uint32_t*>(v + d * 8) = Elem<T>::pack(dv[d][2 * r], dv[d][2 * r + 1]);
            }
        }
    }
}

}  // namespace saw

#define SAW_BWD(NAME, T, D, BQ, BKV, CAPPED)                                                                         \
    extern "C" __global__ void __launch_bounds__(BKV / 16 * 32) NAME(                                        \
        const T* Q, const T* K, const T* V, const T* dO, const float* LSE, const float* Dsum, float* dQacc,  \
        T* dK, T* dV, float* dkvParts, const int* order, const int* parts, const int* variantOf, const int* colPtr, const int* colPartial,      \
        const int* qIdx, const int* maskIdx, const uint32_t* bitsT, int H, int Hkv, int Sq, int Skv, int nkv, \
        float scale, float softcap) {                                                                         \
        saw::attention_bwd<T, D, BQ, BKV, CAPPED>(Q, K, V, dO, LSE, Dsum, dQacc, dK, dV, dkvParts, order, parts, variantOf, colPtr,    \
                                          colPartial, qIdx, maskIdx, bitsT, H, Hkv, Sq, Skv, nkv, scale,    \
                                          softcap);                                                           \
    }

#define SAW_BWD_TILE(TN, T, D, BQ, BKV)                                   \
    SAW_BWD(bwd_##TN##_d##D##_q##BQ##_kv##BKV, T, D, BQ, BKV, false) \
    SAW_BWD(bwd_##TN##_d##D##_q##BQ##_kv##BKV##_softcap, T, D, BQ, BKV, true)

#define SAW_BWD_TILES(TN, T, D)        \
    SAW_BWD_TILE(TN, T, D, 64, 32)   \
    SAW_BWD_TILE(TN, T, D, 64, 64)   \
    SAW_BWD_TILE(TN, T, D, 64, 128)  \
    SAW_BWD_TILE(TN, T, D, 128, 32)  \
    SAW_BWD_TILE(TN, T, D, 128, 64)  \
    SAW_BWD_TILE(TN, T, D, 128, 128)

#define SAW_BWD_HELPERS(TN, T, D)                                                                             \
    extern "C" __global__ void bwd_pre_##TN##_d##D(const T* O, const T* dO, float* Dsum, long long rows) {  \
        saw::attention_bwd_pre<T, D>(O, dO, Dsum, rows);                                                      \
    }

SAW_BWD_TILES(bf16, __nv_bfloat16, 64)
SAW_BWD_TILES(bf16, __nv_bfloat16, 128)
SAW_BWD_TILES(fp16, __half, 64)
SAW_BWD_TILES(fp16, __half, 128)
SAW_BWD_HELPERS(bf16, __nv_bfloat16, 64)
SAW_BWD_HELPERS(bf16, __nv_bfloat16, 128)
SAW_BWD_HELPERS(fp16, __half, 64)
SAW_BWD_HELPERS(fp16, __half, 128)

// head dim 256: 64-row q tiles, as the forward; two CTAs per kv tile, one per half of the outputs' columns (BwdSplit)
#define SAW_BWD_TILES_D256(TN, T)           \
    SAW_BWD_TILE(TN, T, 256, 64, 32)        \
    SAW_BWD_TILE(TN, T, 256, 64, 64)        \
    SAW_BWD_HELPERS(TN, T, 256)

SAW_BWD_TILES_D256(bf16, __nv_bfloat16)
SAW_BWD_TILES_D256(fp16, __half)

namespace saw {

// dK and dV of the split items: item i's parts are [partStarts[i], partStarts[i + 1]) of parts; each CTA adds 1024
// elements (4 per thread) of one item's BKV x D tile over its parts' slots, in part order
template <typename T>
__device__ __forceinline__ void attention_bwd_parts(const float* __restrict__ dkvParts, const int* __restrict__ parts,
                                                    const int* __restrict__ partStarts, T* __restrict__ dK,
                                                    T* __restrict__ dV, int Skv, int nkv, int D, int BKV) {
    const int tileElems = BKV * D;
    const int chunks = (tileElems + 1023) / 1024;
    const int i = blockIdx.x / chunks;
    const int x = (blockIdx.x % chunks) * 1024 + threadIdx.x * 4;
    const int r = x / D;
    const int p0 = partStarts[i];
    const int item = parts[3 * p0];
    const int kv = (item % nkv) * BKV + r;
    if (x >= tileElems || kv >= Skv) return;
    float4 k = make_float4(0.f, 0.f, 0.f, 0.f);
    float4 v = k;
    for (int p = p0; p < partStarts[i + 1]; ++p) {
        const float4 pk = *reinterpret_cast<const float4*>(dkvParts + (size_t)p * 2 * tileElems + x);
        const float4 pv = *reinterpret_cast<const float4*>(dkvParts + (size_t)p * 2 * tileElems + tileElems + x);
        k = make_float4(k.x + pk.x, k.y + pk.y, k.z + pk.z, k.w + pk.w);
        v = make_float4(v.x + pv.x, v.y + pv.y, v.z + pv.z, v.w + pv.w);
    }
    const size_t at = ((size_t)(item / nkv) * Skv + kv) * D + x % D;
    *reinterpret_cast<uint2*>(dK + at) = make_uint2(Elem<T>::pack(k.x, k.y), Elem<T>::pack(k.z, k.w));
    *reinterpret_cast<uint2*>(dV + at) = make_uint2(Elem<T>::pack(v.x, v.y), Elem<T>::pack(v.z, v.w));
}

}  // namespace saw

extern "C" __global__ void __launch_bounds__(256) bwd_parts_bf16(const float* dkvParts, const int* parts,
                                                                  const int* partStarts, __nv_bfloat16* dK,
                                                                  __nv_bfloat16* dV, int Skv, int nkv, int D, int BKV) {
    saw::attention_bwd_parts<__nv_bfloat16>(dkvParts, parts, partStarts, dK, dV, Skv, nkv, D, BKV);
}

extern "C" __global__ void __launch_bounds__(256) bwd_parts_fp16(const float* dkvParts, const int* parts,
                                                                  const int* partStarts, __half* dK, __half* dV,
                                                                  int Skv, int nkv, int D, int BKV) {
    saw::attention_bwd_parts<__half>(dkvParts, parts, partStarts, dK, dV, Skv, nkv, D, BKV);
}

extern "C" __global__ void bwd_dq_bf16(const float* acc, __nv_bfloat16* dQ, long long n, float scale) {
    saw::attention_bwd_dq<__nv_bfloat16>(acc, dQ, n, scale);
}

extern "C" __global__ void bwd_dq_fp16(const float* acc, __half* dQ, long long n, float scale) {
    saw::attention_bwd_dq<__half>(acc, dQ, n, scale);
}

extern "C" __global__ void bwd_dq_perm_bf16(const float* acc, __nv_bfloat16* dQ, long long n, float scale, int Sq, int D) {
    saw::attention_bwd_dq_perm<__nv_bfloat16>(acc, dQ, n, scale, Sq, D);
}

extern "C" __global__ void bwd_dq_perm_fp16(const float* acc, __half* dQ, long long n, float scale, int Sq, int D) {
    saw::attention_bwd_dq_perm<__half>(acc, dQ, n, scale, Sq, D);
}

