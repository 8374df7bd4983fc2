// Which producer -> consumer hand-offs of ordinary shared-memory stores does compute-sanitizer's racecheck follow?
// One producer warp writes a 2-stage ring with st.shared, two consumer warps read it with ld.shared.
// mode 0: named barriers both ways (bar.arrive by the writer side, bar.sync by the waiting side)
// mode 1: mbarriers both ways (arrive = release.cta, try_wait = acquire.cta)
// mode 2: named barrier for full (RAW), mbarrier for empty (WAR)
// mode 3: mbarrier for full, named barrier for empty
// mode 4: the producer's thread 0 fills the stage with a bulk copy (complete_tx on full), named barrier for empty
// mode 5: as 4 with an mbarrier for empty (the persistent forward's spans-bulk version)
// Built on the device from the repository root: nvcc -O2 -arch=sm_90a -I engine/src/main/cuda bench/probe/racecheck_handoff.cu
// (the barriers are the kernels' own helpers from pipeline.cuh).
#include <cstdio>
#include <cstdint>
#include "pipeline.cuh"

using namespace saw;

__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem_u32(dst)), "l"(src), "r"(bytes), "r"(smem_u32(b)) : "memory");
}
__global__ void handoff(int mode, int iters, const uint32_t* src, int* out) {
  __shared__ uint32_t buf[2][64];
  __shared__ uint64_t full[2], empty[2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const bool bulk = mode >= 4;
  if (threadIdx.x == 0) { for (int s = 0; s < 2; ++s) { mbar_init(&full[s], bulk ? 1 : 32); mbar_init(&empty[s], 64); } mbar_init_fence(); }
  __syncthreads();
  const bool nbFull = mode == 0 || mode == 2, nbEmpty = mode == 0 || mode == 3 || mode == 4;
  int acc = 0;
  for (int i = 0; i < iters; ++i) {
    const int s = i & 1; const uint32_t ph = (i >> 1) & 1;
    if (warp == 0) {
      if (i >= 2) { if (nbEmpty) named_sync(3 + s, 96); else mbar_wait(&empty[s], ph ^ 1); }
      if (bulk) {
        if (lane == 0) { mbar_arrive_expect_tx(&full[s], 256); bulk_load(buf[s], src + 64 * i, 256, &full[s]); }
      } else {
        buf[s][lane] = i * 100 + lane; buf[s][lane + 32] = i;
        if (nbFull) named_arrive(1 + s, 96); else mbar_arrive(&full[s]);
      }
    } else {
      if (nbFull) named_sync(1 + s, 96); else mbar_wait(&full[s], ph);
      acc += buf[s][lane + 32 * (warp - 1)];
      if (nbEmpty) named_arrive(3 + s, 96); else mbar_arrive(&empty[s]);
    }
  }
  // drain: the producer's last two empty phases are never waited for in mode 1/2 (harmless here)
  out[threadIdx.x] = acc;
}
int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  int* d; cudaMalloc(&d, 96 * sizeof(int));
  uint32_t hs[16 * 64]; for (int i = 0; i < 16; ++i) for (int l = 0; l < 64; ++l) hs[64 * i + l] = l < 32 ? i * 100 + l : i;
  uint32_t* src; cudaMalloc(&src, sizeof hs); cudaMemcpy(src, hs, sizeof hs, cudaMemcpyHostToDevice);
  handoff<<<1, 96>>>(mode, 16, src, d);
  int h[96]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  long expect = 0; for (int i = 0; i < 16; ++i) expect += i * 100 + 5;
  printf("mode %d: %s (lane 5 sum %d, expected %ld), %s\n", mode, h[32 + 5] == expect ? "ok" : "WRONG", h[37], expect, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
