// Learned sink logits (gpt-oss softmax_aux), one fp32 value per q head, for every kernel family at once:
//   sink_apply_*  after any forward: LSE' = logaddexp(LSE, sink), O' = O * exp(LSE - LSE'), one warp per query row
//                 (a row that attends nothing has O = 0 and LSE = -inf, so it gets O' = 0 and LSE' = sink)
//   sink_grad     after bwd_pre_*: dSink[h] -= exp(sink_h - LSE') * Dsum, one thread per query row
// The backward kernels need nothing else: P = exp(S - LSE') is already the sink-including softmax, and
// Dsum = rowsum(dO * O') is taken from O'.

#include "tile.cuh"

namespace saw {

template <typename T>
__device__ __forceinline__ void sink_apply(T* O, float* lse, const float* sinks, long long rows, int heads, int seqQ,
                                           int d) {
    const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const int h = (int)((row / seqQ) % heads);
    const float l = lse[row];
    const float s = sinks[h];
    const float merged = fmaxf(l, s) + log1pf(__expf(-fabsf(l - s)));
    const float merged_or_sink = l == -INFINITY ? s : merged;
    const float factor = l == -INFINITY ? 0.f : __expf(l - merged_or_sink);
    T* o = O + row * d;
    for (int x = lane * 2; x < d; x += 64) {
        uint32_t* p = reinterpret_cast<uint32_t*>(o + x);
        const float2 v = Elem<T>::unpack(*p);
        *p = Elem<T>::pack(v.x * factor, v.y * factor);
    }
    if (lane == 0) lse[row] = merged_or_sink;
}

__device__ __forceinline__ void sink_grad(const float* lse, const float* dsum, const float* sinks, float* dsink,
                                          long long rows, int heads, int seqQ) {
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const int h = row < rows ? (int)((row / seqQ) % heads) : -1;
    float g = row < rows ? -__expf(sinks[h] - lse[row]) * dsum[row] : 0.f;
    // most warps lie inside one head's rows: sum them first, one atomic per warp
    const int h0 = __shfl_sync(0xffffffffu, h, 0);
    if (__all_sync(0xffffffffu, h == h0)) {
        for (int off = 16; off > 0; off >>= 1) g += __shfl_down_sync(0xffffffffu, g, off);
        if (lane == 0 && h0 >= 0) atomicAdd(dsink + h0, g);
    } else if (h >= 0) {
        atomicAdd(dsink + h, g);
    }
}

}  // namespace saw

extern "C" __global__ void sink_apply_bf16(__nv_bfloat16* O, float* lse, const float* sinks, long long rows, int heads,
                                           int seqQ, int d) {
    saw::sink_apply(O, lse, sinks, rows, heads, seqQ, d);
}

extern "C" __global__ void sink_apply_fp16(__half* O, float* lse, const float* sinks, long long rows, int heads, int seqQ,
                                           int d) {
    saw::sink_apply(O, lse, sinks, rows, heads, seqQ, d);
}

extern "C" __global__ void sink_grad(const float* lse, const float* dsum, const float* sinks, float* dsink, long long rows,
                                     int heads, int seqQ) {
    saw::sink_grad(lse, dsum, sinks, dsink, rows, heads, seqQ);
}
