// How many bytes a second can L2 hand to the SMs' shared memory when a thread-block cluster multicasts each load to
// several CTAs, against plain per-CTA loads, and how fast is distributed shared memory? The question behind it is
// issue 14's forward: the warp order reads each chosen K / V block from L2 once per (token, kv head) and runs at the
// L2's read rate; a cluster whose CTAs share blocks could read each block once per cluster, but only if delivering
// it to several SMs is not itself bound by the same rate.
//
// Mode "bulk": every CTA streams random SZ-byte blocks of an L2-resident buffer into a ring of R slots with
// cp.async.bulk (one producer thread, mbarrier per slot); four consumer warps read each slot (one 16-byte load a thread
// per 2 KB) and release it. With cluster size C > 1 and multicast on, slot s is loaded by CTA s % C for every CTA of
// the cluster (the same random block), which releases it only when all C CTAs' consumers have (remote mbarrier
// arrives): L2 reads one block per C deliveries. With multicast off, cluster CTAs load their own blocks (the cluster's
// own cost). Mode "dsmem": each CTA reads a neighbour's shared memory with ld.shared::cluster.v4.
// Built here: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o cluster_l2_probe cluster_l2_probe.cu
// Run: ./cluster_l2_probe   (prints one line per configuration: delivered and L2-read GB/s; each grid is the
// resident CTAs in whole clusters, cudaOccupancyMaxActiveClusters, so nothing runs a second wave)
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)

__device__ __forceinline__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t cluster_rank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ uint32_t cluster_id_x() { uint32_t r; asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void mb_init(uint64_t* b, uint32_t n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(s32(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mb_expect(uint64_t* b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(s32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mb_wait(uint64_t* b, uint32_t parity) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}"
               :: "r"(s32(b)), "r"(parity) : "memory");
}
__device__ __forceinline__ void mb_arrive_remote(uint64_t* b, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(s32(b)), "r"(rank));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(remote) : "memory");
}
__device__ __forceinline__ void bulk_get(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(s32(dst)), "l"(src), "r"(bytes), "r"(s32(b)) : "memory");
}
__device__ __forceinline__ void bulk_get_mc(void* dst, const void* src, uint32_t bytes, uint64_t* b, uint16_t mask) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
               :: "r"(s32(dst)), "l"(src), "r"(bytes), "r"(s32(b)), "h"(mask) : "memory");
}
__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16; return x;
}

constexpr int kConsumerWarps = 4;
constexpr int kMaxSlots = 8;

// C: cluster size (1 = no cluster), multicast: share each slot over the cluster.
__global__ void __launch_bounds__(32 * (kConsumerWarps + 1)) bulk_stream(const uint8_t* src, uint32_t blocks,
    uint32_t sz, int slots, int loads, int C, int multicast, uint32_t* out) {
  extern __shared__ __align__(128) uint8_t smem[];
  __shared__ uint64_t full[kMaxSlots], empty[kMaxSlots];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = C > 1 ? cluster_rank() : 0;
  const uint32_t group = multicast ? (C > 1 ? cluster_id_x() : blockIdx.x) : blockIdx.x;
  if (threadIdx.x == 0) {
    // empty[s] collects every consumer warp that reads slot s: the cluster's when multicast, else this CTA's.
    const uint32_t releasers = kConsumerWarps * (multicast ? C : 1);
    for (int s = 0; s < slots; ++s) { mb_init(&full[s], 1); mb_init(&empty[s], releasers); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (C > 1) cluster_sync(); else __syncthreads();
  uint32_t acc = 0;
  if (warp == kConsumerWarps) {
    if (lane == 0) {
      for (int k = 0; k < loads; ++k) {
        const int s = k % slots; const uint32_t use = k / slots;
        if (use > 0) mb_wait(&full[s], (use - 1) & 1);  // this CTA has seen the slot's previous fill
        const bool issuer = !multicast || (uint32_t)(s % C) == rank;
        if (issuer && use > 0) mb_wait(&empty[s], (use - 1) & 1);  // every reader released the previous fill
        mb_expect(&full[s], sz);
        if (issuer) {
          const uint32_t blk = mix(group * 0x9e3779b9U + (uint32_t)k * 0x85ebca6bU + 1) % blocks;
          const uint8_t* from = src + (size_t)blk * sz;
          if (multicast) bulk_get_mc(smem + (size_t)s * sz, from, sz, &full[s], (uint16_t)((1u << C) - 1));
          else bulk_get(smem + (size_t)s * sz, from, sz, &full[s]);
        }
      }
    }
  } else {
    for (int k = 0; k < loads; ++k) {
      const int s = k % slots; const uint32_t use = k / slots;
      mb_wait(&full[s], use & 1);
      const uint4* slot = reinterpret_cast<const uint4*>(smem + (size_t)s * sz);
      for (uint32_t i = threadIdx.x; i < sz / 16; i += 32 * kConsumerWarps * 8) {  // one 16-byte read per 2 KB
        const uint4 v = slot[i]; acc ^= v.x ^ v.w;
      }
      __syncwarp();
      if (lane == 0) {
        if (multicast) mb_arrive_remote(&empty[s], (uint32_t)(s % C));
        else asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(s32(&empty[s])) : "memory");
      }
    }
  }
  if (C > 1) cluster_sync();  // no CTA leaves while a neighbour may still arrive on its barriers
  if (acc == 0x12345678u) out[0] = acc;
}

// Each CTA fills `bytes` of its shared memory, then every thread reads the neighbour's (rank ^ 1) with 16-byte loads.
__global__ void __launch_bounds__(256) dsmem_read(uint32_t bytes, int passes, int remote, uint32_t* out) {
  extern __shared__ __align__(128) uint8_t smem[];
  uint4* mine = reinterpret_cast<uint4*>(smem);
  for (uint32_t i = threadIdx.x; i < bytes / 16; i += blockDim.x) mine[i] = make_uint4(i, i * 3, i * 5, i * 7);
  cluster_sync();
  const uint32_t peer = remote ? (cluster_rank() ^ 1) : cluster_rank();
  uint32_t base;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(base) : "r"(s32(smem)), "r"(peer));
  uint32_t acc = 0;
  const uint32_t stride = blockDim.x * 16;
  for (int p = 0; p < passes; ++p) {
    for (uint32_t i = threadIdx.x * 16; i + 7 * stride < bytes; i += 8 * stride) {  // eight loads in flight a thread
      uint32_t a[8], d[8];
      #pragma unroll
      for (int u = 0; u < 8; ++u) {
        uint32_t b, c;
        asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a[u]), "=r"(b), "=r"(c), "=r"(d[u]) : "r"(base + i + u * stride));
      }
      #pragma unroll
      for (int u = 0; u < 8; ++u) acc += a[u] ^ d[u] ^ (uint32_t)p;
    }
  }
  cluster_sync();
  if (acc == 0x12345678u) out[0] = acc;
}

// The grid: as many CTAs as can be resident at once (whole clusters), so that no configuration runs a second wave.
static int resident_grid(const void* kernel, int threads, size_t smem, int C) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(C * 1024); cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  int clusters = 0;
  CK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
  return clusters * C;
}

static float launch_bulk(const uint8_t* src, uint32_t blocks, uint32_t sz, int slots, int loads, int grid, int C,
                         int multicast, uint32_t* out) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid); cfg.blockDim = dim3(32 * (kConsumerWarps + 1));
  cfg.dynamicSmemBytes = (size_t)sz * slots;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  CK(cudaLaunchKernelEx(&cfg, bulk_stream, src, blocks, sz, slots, loads, C, multicast, out));  // warm-up
  CK(cudaEventRecord(a));
  const int reps = 5;
  for (int r = 0; r < reps; ++r) CK(cudaLaunchKernelEx(&cfg, bulk_stream, src, blocks, sz, slots, loads, C, multicast, out));
  CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
  float ms; CK(cudaEventElapsedTime(&ms, a, b));
  return ms / reps;
}

static float launch_dsmem(uint32_t bytes, int passes, int grid, int C, int remote, uint32_t* out) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid); cfg.blockDim = dim3(256); cfg.dynamicSmemBytes = bytes;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  CK(cudaLaunchKernelEx(&cfg, dsmem_read, bytes, passes, remote, out));
  CK(cudaEventRecord(a));
  const int reps = 5;
  for (int r = 0; r < reps; ++r) CK(cudaLaunchKernelEx(&cfg, dsmem_read, bytes, passes, remote, out));
  CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
  float ms; CK(cudaEventElapsedTime(&ms, a, b));
  return ms / reps;
}

int main() {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("device %s, %d SMs, L2 %d MB\n", prop.name, sms, prop.l2CacheSize >> 20);
  const size_t bufBytes = 32u << 20;  // one kv plane's K and V at T = 64K, D = 128, bf16 (33.5 MB), rounded down
  uint8_t* buf; uint32_t* out;
  CK(cudaMalloc(&buf, bufBytes)); CK(cudaMalloc(&out, 64));
  CK(cudaMemset(buf, 1, bufBytes));
  CK(cudaFuncSetAttribute(bulk_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  CK(cudaFuncSetAttribute(bulk_stream, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(dsmem_read, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  CK(cudaFuncSetAttribute(dsmem_read, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  std::printf("%-6s %-4s %-6s %-5s %-5s %-5s %-9s %-12s %-12s\n", "mode", "C", "sz", "slots", "mc", "grid", "ms",
              "deliv_GB/s", "l2read_GB/s");
  // (size, slots): one CTA per SM with about 192 KB in flight, or two CTAs per SM with about 96 KB each
  const uint32_t sizes[][2] = {{8192, 8}, {16384, 8}, {32768, 6}, {16384, 6}, {32768, 3}};
  const int clusters[] = {1, 2, 4, 8, 16};
  for (const auto& cfgSz : sizes) {
    const uint32_t sz = cfgSz[0];
    const int slots = (int)cfgSz[1];
    const uint32_t blocks = (uint32_t)(bufBytes / sz);
    const int perCta = (int)((64ull << 20) / sz);  // 64 MB delivered to each CTA
    for (int C : clusters) {
      for (int mc = 0; mc <= 1; ++mc) {
        if (C == 1 && mc) continue;
        const int grid = resident_grid((const void*)bulk_stream, 32 * (kConsumerWarps + 1), (size_t)sz * slots, C);
        if (grid == 0) { std::printf("bulk C=%d sz=%u: no cluster fits\n", C, sz); continue; }
        const float ms = launch_bulk(buf, blocks, sz, slots, perCta, grid, C, mc, out);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) { std::printf("bulk C=%d sz=%u mc=%d: %s\n", C, sz, mc, cudaGetErrorString(e)); continue; }
        const double delivered = (double)grid * perCta * sz;
        const double l2 = mc ? delivered / C : delivered;
        std::printf("%-6s %-4d %-6u %-5d %-5d %-5d %-9.3f %-12.0f %-12.0f\n", "bulk", C, sz, slots, mc, grid, ms,
                    delivered / ms / 1e6, l2 / ms / 1e6);
      }
    }
  }
  for (int C : {2, 4}) {
    for (int remote = 0; remote <= 1; ++remote) {
      const uint32_t bytes = 96 * 1024;
      const int passes = 64;
      const int grid = resident_grid((const void*)dsmem_read, 256, bytes, C);
      const float ms = launch_dsmem(bytes, passes, grid, C, remote, out);
      const double moved = (double)grid * passes * bytes;
      std::printf("%-6s %-4d %-6u %-5s %-5d %-5d %-9.3f %-12.0f %-12s\n", remote ? "dsmem" : "local", C, bytes, "-", 0,
                  grid, ms, moved / ms / 1e6, "-");
    }
  }
  CK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
