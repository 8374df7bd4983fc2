// Ring attention's per-step combinations (saw.engine.gpu.RingExecutor): a device keeps its running output in fp32
// and folds each ring step's partial output into it by log-sum-exp; in the backward pass it adds each step's dK/dV
// to the fp32 accumulator that travels around the ring with the K/V shard. The final conversions back to the
// element type reuse bwd_dq_* with scale 1.

#include "tile.cuh"

namespace saw {

// One warp per row: Oacc[r] and LSEacc[r] become the softmax-weighted combination of themselves and a step's
// O[r] (element type) with LSE[r]. -inf marks a row that attends nothing (yet); it contributes weight 0.
template <typename T, int D>
__device__ __forceinline__ void ring_merge(const T* __restrict__ O, const float* __restrict__ LSE,
                                           float* __restrict__ Oacc, float* __restrict__ LSEacc, long long rows) {
    const long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (r >= rows) return;
    const int lane = threadIdx.x & 31;
    constexpr int PER = D / 32;  // elements per lane, 2 or 4
    const float step = LSE[r];
    const float run = LSEacc[r];
    const float m = fmaxf(step, run);
    if (m == -INFINITY) return;
    const float ws = expf(step - m);
    const float wr = expf(run - m);
    const float inv = 1.f / (ws + wr);
    const T* o = O + r * D + lane * PER;
    float* acc = Oacc + r * D + lane * PER;
#pragma unroll
    for (int x = 0; x < PER; x += 2) {
        const float2 a = Elem<T>::unpack(*reinterpret_cast<const uint32_t*>(o + x));
        float2 c = *reinterpret_cast<float2*>(acc + x);
        c.x = (c.x * wr + a.x * ws) * inv;
        c.y = (c.y * wr + a.y * ws) * inv;
        *reinterpret_cast<float2*>(acc + x) = c;
    }
    __syncwarp();  // every lane has read LSEacc[r] before lane 0 replaces it
    if (lane == 0) LSEacc[r] = m + logf(ws + wr);
}

// acc[i] += x[i], two elements per thread (n is even: D is).
template <typename T>
__device__ __forceinline__ void ring_add(const T* __restrict__ x, float* __restrict__ acc, long long n) {
    const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 2;
    if (i >= n) return;
    const float2 a = Elem<T>::unpack(*reinterpret_cast<const uint32_t*>(x + i));
    float2 c = *reinterpret_cast<float2*>(acc + i);
    c.x += a.x;
    c.y += a.y;
    *reinterpret_cast<float2*>(acc + i) = c;
}

}  // namespace saw

#define SAW_RING_MERGE(TN, T, D)                                                                                   \
    extern "C" __global__ void ring_merge_##TN##_d##D(const T* O, const float* LSE, float* Oacc, float* LSEacc,  \
                                                      long long rows) {                                          \
        saw::ring_merge<T, D>(O, LSE, Oacc, LSEacc, rows);                                                        \
    }

SAW_RING_MERGE(bf16, __nv_bfloat16, 64)
SAW_RING_MERGE(bf16, __nv_bfloat16, 128)
SAW_RING_MERGE(fp16, __half, 64)
SAW_RING_MERGE(fp16, __half, 128)

extern "C" __global__ void ring_add_bf16(const __nv_bfloat16* x, float* acc, long long n) {
    saw::ring_add(x, acc, n);
}

extern "C" __global__ void ring_add_fp16(const __half* x, float* acc, long long n) {
    saw::ring_add(x, acc, n);
}
