// Random inputs drawn on the device, so that timing large problems needs no host-side generation or transfer:
// approximately standard normal values (Box-Muller on a counter-based hash), rounded to the element type,
// never zero.

#include "tile.cuh"

namespace saw {

__device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <typename T>
__device__ __forceinline__ void fill_normal(T* out, long long n, unsigned long long seed) {
    const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 2;
    if (i >= n) return;
    const unsigned long long r = mix64(seed ^ mix64((unsigned long long)i));
    const float u1 = ((r >> 40) + 1) * (1.0f / 16777217.0f);  // (0, 1]
    const float u2 = ((r >> 16) & 0xffffff) * (1.0f / 16777216.0f);
    const float rad = sqrtf(-2.f * __logf(u1));
    float a = rad * __cosf(6.2831853f * u2);
    float b = rad * __sinf(6.2831853f * u2);
    // keep values away from zero (bf16 and fp16 both hold 1e-3 well)
    if (fabsf(a) < 1e-3f) a = a < 0.f ? -1e-3f : 1e-3f;
    if (fabsf(b) < 1e-3f) b = b < 0.f ? -1e-3f : 1e-3f;
    if (i + 1 < n) {
        *reinterpret_cast<uint32_t*>(out + i) = Elem<T>::pack(a, b);
    } else {
        const uint32_t v = Elem<T>::pack(a, b);
        *reinterpret_cast<uint16_t*>(out + i) = (uint16_t)(v & 0xffffu);
    }
}

}  // namespace saw

extern "C" __global__ void fill_normal_bf16(__nv_bfloat16* out, long long n, unsigned long long seed) {
    saw::fill_normal(out, n, seed);
}

extern "C" __global__ void fill_normal_fp16(__half* out, long long n, unsigned long long seed) {
    saw::fill_normal(out, n, seed);
}
