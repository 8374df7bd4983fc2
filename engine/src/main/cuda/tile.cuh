// Tile helpers shared by the attention kernels: tensor-core mma.sync m16n8k16, ldmatrix, cp.async and a
// swizzled shared-memory layout for row-major tiles of 16-bit elements.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace saw {

// ---- element types ---------------------------------------------------------------------------------------

template <typename T> struct Elem;

template <> struct Elem<__nv_bfloat16> {
    static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
        __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<uint32_t*>(&v);
    }
    static __device__ __forceinline__ float2 unpack(uint32_t x) {
        return __bfloat1622float2(*reinterpret_cast<__nv_bfloat162*>(&x));
    }
    // D = A * B + D, A 16x16 row-major, B 16x8 column-major, fp32 accumulators
    static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

template <> struct Elem<__half> {
    static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
        __half2 v = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<uint32_t*>(&v);
    }
    static __device__ __forceinline__ float2 unpack(uint32_t x) {
        return __half22float2(*reinterpret_cast<__half2*>(&x));
    }
    static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

// Two n8 blocks (n, n + 1) of one accumulator row, stored 8 bytes a lane: quad lane t holds the packed pair of
// columns (2t, 2t + 1) of block n in `a` and of block n + 1 in `b`; lanes t and t ^ 1 swap one pair, so even t writes
// columns 2t .. 2t + 3 of block n and odd t columns 2t - 2 .. 2t + 1 of block n + 1. `row` points at the row's column
// 2 (t & ~1); every lane of the warp takes part (the swap is a shuffle), only those with `ok` store.
template <typename T>
__device__ __forceinline__ void store_pairs8(T* row, int n, uint32_t a, uint32_t b, bool odd, bool ok) {
    const uint32_t got = __shfl_xor_sync(0xffffffffu, odd ? a : b, 1);
    if (ok) *reinterpret_cast<uint2*>(row + (n + (odd ? 1 : 0)) * 8) = odd ? make_uint2(got, b) : make_uint2(a, got);
}

// ---- shared memory --------------------------------------------------------------------------------------

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Stores to a 32-bit shared-memory address. The vector store is explicit because nvcc 13 split half of a generic
// float4 store loop (store_dq_perm's first row) into four 4-byte stores.
__device__ __forceinline__ void st_shared_b32(uint32_t addr, uint32_t v) {
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void st_shared_v4f32(uint32_t addr, float a, float b, float c, float d) {
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}

// A row-major tile of 16-bit elements with COLS columns, stored in 16-byte chunks whose index is XORed with
// (row & 7): the 8 rows one ldmatrix phase reads then fall into 8 different bank groups.
template <int COLS>
struct Swizzled {
    static_assert(COLS % 64 == 0, "swizzle needs at least 8 chunks per row");
    static constexpr int CHUNKS = COLS / 8;
    // element offset of (row, first element of chunk)
    static __device__ __forceinline__ int chunk(int row, int ch) {
        return row * COLS + ((ch ^ (row & 7)) << 3);
    }
    static __device__ __forceinline__ int elem(int row, int col) {
        return chunk(row, col >> 3) + (col & 7);
    }
};

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// Lane address patterns for ldmatrix.x4 over a 16x16 block starting at (row0, chunk0) of a swizzled tile.
// "A" order: matrices (rows 0-7, chunk 0), (rows 8-15, chunk 0), (rows 0-7, chunk 1), (rows 8-15, chunk 1)
//   - non-transposed: the A operand of m16n8k16 from a row-major [m][k] tile
//   - transposed: the B operands of two n8 blocks from a row-major [k][n] tile
// "B" order: matrices (rows 0-7, chunk 0), (rows 0-7, chunk 1), (rows 8-15, chunk 0), (rows 8-15, chunk 1)
//   - non-transposed: the B operands of two n8 blocks from a row-major [n][k] tile
//   - transposed: the A operand from a row-major [k][m] tile
template <int COLS>
__device__ __forceinline__ uint32_t addr_a_order(const void* tile, int row0, int chunk0, int lane) {
    int row = row0 + (lane & 7) + ((lane >> 3) & 1) * 8;
    int ch = chunk0 + (lane >> 4);
    return smem_u32(static_cast<const uint16_t*>(tile) + Swizzled<COLS>::chunk(row, ch));
}

template <int COLS>
__device__ __forceinline__ uint32_t addr_b_order(const void* tile, int row0, int chunk0, int lane) {
    int row = row0 + (lane & 7) + (lane >> 4) * 8;
    int ch = chunk0 + ((lane >> 3) & 1);
    return smem_u32(static_cast<const uint16_t*>(tile) + Swizzled<COLS>::chunk(row, ch));
}

// ---- asynchronous copies ----------------------------------------------------------------------------------

// 16 bytes global -> shared; when !valid nothing is read and the 16 bytes are zero-filled.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
    int n = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}

// L2 eviction priorities (createpolicy) for the copies and reductions below: evict_first for what a kernel streams
// through once, so that it does not push out what it reuses; evict_last for what it reuses.
__device__ __forceinline__ uint64_t l2_evict_first() {
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    return policy;
}

__device__ __forceinline__ uint64_t l2_evict_last() {
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
    return policy;
}

// cp_async16 with an L2 eviction policy
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid, uint64_t policy) {
    int n = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(dst), "l"(src), "r"(n),
                 "l"(policy));
}

__device__ __forceinline__ void cp_async4(uint32_t dst, const void* src, bool valid) {
    int n = valid ? 4 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}

__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Copies rows [row0, row0 + ROWS) of a row-major [*, COLS] global matrix into a shared tile laid out by LAYOUT
// (its chunk(row, chunk) gives the element offset of a 16-byte chunk); rows at or past `limit` are zero-filled.
// POLICY: each copy with the L2 eviction policy `policy` (l2_evict_first / l2_evict_last)
template <class LAYOUT, int ROWS, int COLS, int THREADS, bool POLICY = false>
__device__ __forceinline__ void load_rows(void* tile, const void* global, int row0, int limit, int tid,
                                          uint64_t policy = 0) {
    constexpr int CHUNKS = COLS / 8;
    const uint16_t* g = static_cast<const uint16_t*>(global);
    uint16_t* s = static_cast<uint16_t*>(tile);
#pragma unroll
    for (int i = tid; i < ROWS * CHUNKS; i += THREADS) {
        int r = i / CHUNKS;
        int c = i % CHUNKS;
        bool valid = row0 + r < limit;
        const uint16_t* src = valid ? g + (size_t)(row0 + r) * COLS + c * 8 : g;
        if constexpr (POLICY) {
            cp_async16(smem_u32(s + LAYOUT::chunk(r, c)), src, valid, policy);
        } else {
            cp_async16(smem_u32(s + LAYOUT::chunk(r, c)), src, valid);
        }
    }
}

// load_rows for a thread that only copies (a producer warpgroup): each thread copies one column of chunks, every
// STEP rows, a fixed trip count with constant address steps, so the copies issue back to back. (load_rows' loop
// left the Hopper forward's producer warps waiting on their own address arithmetic; in kernels whose compute
// threads also copy, this form's longer-lived addresses cost registers and spills.) A zero-byte copy reads nothing.
// UNROLL: copies issued per turn of the loop (all of them by default; fewer where the addresses of all would not fit
// the thread's registers).
template <class LAYOUT, int ROWS, int COLS, int THREADS, int UNROLL = ROWS / (THREADS / (COLS / 8))>
__device__ __forceinline__ void load_rows_by_column(void* tile, const void* global, int row0, int limit, int tid) {
    constexpr int CHUNKS = COLS / 8;
    static_assert(THREADS % CHUNKS == 0 && ROWS % (THREADS / CHUNKS) == 0, "each thread copies whole columns");
    constexpr int STEP = THREADS / CHUNKS;
    const int c = tid % CHUNKS;
    const int r0 = tid / CHUNKS;
    const uint16_t* g = static_cast<const uint16_t*>(global) + (size_t)(row0 + r0) * COLS + c * 8;
    uint16_t* s = static_cast<uint16_t*>(tile);
#pragma unroll UNROLL
    for (int k = 0; k < ROWS / STEP; ++k) {
        const int r = r0 + k * STEP;
        cp_async16(smem_u32(s + LAYOUT::chunk(r, c)), g + (size_t)k * STEP * COLS, row0 + r < limit);
    }
}

// load_rows into the mma.sync kernels' swizzled tile.
template <int ROWS, int COLS, int THREADS>
__device__ __forceinline__ void load_tile(void* tile, const void* global, int row0, int limit, int tid) {
    load_rows<Swizzled<COLS>, ROWS, COLS, THREADS>(tile, global, row0, limit, tid);
}

// ---- arithmetic -------------------------------------------------------------------------------------------

__device__ __forceinline__ float exp2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float quad_max(float v) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
    return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}

__device__ __forceinline__ float quad_sum(float v) {
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

constexpr float LOG2E = 1.4426950408889634f;
constexpr float LN2 = 0.6931471805599453f;

// Softmaxes that keep a row's max (the D = 256 Hopper forward, the NSA warp-order forward at D = 128): how far (log2
// of P) a tile's row max may pass the kept one before O and l are rescaled to it
constexpr float KEPT_MAX_SLACK_LOG2 = 8.f;

}  // namespace saw
