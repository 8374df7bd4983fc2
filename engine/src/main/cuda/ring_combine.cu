// Ring attention's combinations (saw.engine.gpu.RingGpus): after the forward ring a device combines the partial
// outputs of its steps by log-sum-exp in one pass (one read of each part, one rounding; folding each step into a
// running fp32 output instead would move 10 bytes per element per step on the compute stream); in the backward pass it
// adds each step's dK/dV to the fp32 accumulator that travels around the ring with the K/V shard. The conversions of
// the fp32 accumulators back to the element type reuse bwd_dq_* with scale 1.

#include "tile.cuh"

namespace saw {

// One warp per row: the ring's final O[r] (element type) and LSE[r] from the device's partial results, one per
// computed step (O[p], LSE[p] point at part p's [rows, D] and [rows]): the softmax-weighted combination by
// log-sum-exp, in fp32, rounded once. -inf marks a part's row that attends nothing; a row no part attends gets
// O = 0 and LSE = -inf, as the kernels write it.
template <typename T, int D>
__device__ __forceinline__ void ring_combine(const T* const* __restrict__ O, const float* const* __restrict__ LSE,
                                             int parts, T* __restrict__ out, float* __restrict__ lseOut,
                                             long long rows) {
    const long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (r >= rows) return;
    const int lane = threadIdx.x & 31;
    constexpr int PER = D / 32;  // elements per lane, 2 or 4
    float m = -INFINITY;
    for (int p = 0; p < parts; ++p) m = fmaxf(m, LSE[p][r]);
    float acc[PER];
#pragma unroll
    for (int x = 0; x < PER; ++x) acc[x] = 0.f;
    float sum = 0.f;
    if (m != -INFINITY) {
        for (int p = 0; p < parts; ++p) {
            const float w = expf(LSE[p][r] - m);
            sum += w;
            const T* o = O[p] + r * D + lane * PER;
#pragma unroll
            for (int x = 0; x < PER; x += 2) {
                const float2 a = Elem<T>::unpack(*reinterpret_cast<const uint32_t*>(o + x));
                acc[x] += w * a.x;
                acc[x + 1] += w * a.y;
            }
        }
    }
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    T* dst = out + r * D + lane * PER;
#pragma unroll
    for (int x = 0; x < PER; x += 2) {
        *reinterpret_cast<uint32_t*>(dst + x) = Elem<T>::pack(acc[x] * inv, acc[x + 1] * inv);
    }
    if (lane == 0) lseOut[r] = sum > 0.f ? m + logf(sum) : -INFINITY;
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

#define SAW_RING_COMBINE(TN, T, D)                                                                                \
    extern "C" __global__ void ring_combine_##TN##_d##D(const T* const* O, const float* const* LSE, int parts,   \
                                                        T* out, float* lseOut, long long rows) {                 \
        saw::ring_combine<T, D>(O, LSE, parts, out, lseOut, rows);                                               \
    }

SAW_RING_COMBINE(bf16, __nv_bfloat16, 64)
SAW_RING_COMBINE(bf16, __nv_bfloat16, 128)
SAW_RING_COMBINE(fp16, __half, 64)
SAW_RING_COMBINE(fp16, __half, 128)

extern "C" __global__ void ring_add_bf16(const __nv_bfloat16* x, float* acc, long long n) {
    saw::ring_add(x, acc, n);
}

extern "C" __global__ void ring_add_fp16(const __half* x, float* acc, long long n) {
    saw::ring_add(x, acc, n);
}

// Holds a stream for ns nanoseconds (one thread, polling the global timer), so that the host can queue a whole timed
// ring run behind it: the run is then timed from the end of the delay, not from when the host began its launches.
extern "C" __global__ void ring_delay(long long ns) {
    long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    long long now = start;
    while (now - start < ns) {
        __nanosleep(2000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    }
}
