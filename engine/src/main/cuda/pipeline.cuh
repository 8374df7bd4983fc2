// Hopper (sm_90) synchronisation for warp-specialised kernels: shared-memory mbarriers with phase parity, named
// barriers between warpgroups, and setmaxnreg to move registers from a producer warpgroup to the consumers.
// Include only under __CUDA_ARCH_FEAT_SM90_ALL, like wgmma.cuh.
#pragma once

#include "tile.cuh"

namespace saw {

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}

// Makes initialised barriers visible to the other threads' mbarrier operations (before the CTA barrier).
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Release-arrive: this thread's earlier memory operations are visible to whoever completes a wait on the phase.
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}

// `count` release-arrivals at once, on behalf of that many expected arrivers (sm_90: the count operand).
__device__ __forceinline__ void mbar_arrive_count(uint64_t* bar, uint32_t count) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count)
                 : "memory");
}

// A counter in shared memory that one thread raises and others wait on, by atomics (release add, acquire read at CTA
// scope), which racecheck orders as it does the mbarriers rather than reporting the reads as races with the adds.
__device__ __forceinline__ void shared_count_add(int* count, int value) {
    asm volatile("red.release.cta.shared::cta.add.u32 [%0], %1;\n" ::"r"(smem_u32(count)), "r"(value) : "memory");
}

__device__ __forceinline__ int shared_count_read(int* count) {
    int value;
    asm volatile("atom.acquire.cta.shared::cta.add.u32 %0, [%1], 0;\n" : "=r"(value) : "r"(smem_u32(count)) : "memory");
    return value;
}

// A warp's arrival on a barrier that counts warps: once every lane has got here (its reads are done), lane 0 arrives.
__device__ __forceinline__ void warp_arrive(uint64_t* bar, bool lane0) {
    __syncwarp();
    if (lane0) mbar_arrive(bar);
}

// Counts this warp in: lane 0 adds 1 to `count` (acquire-release at CTA scope; __syncwarp orders the lanes' earlier
// memory operations before it). With `warps` warps a round (a power of two) and the count never reset, true for
// exactly one thread a round: lane 0 of its last warp, which has seen the writes of every warp counted in that round.
__device__ __forceinline__ bool last_warp_in(uint32_t* count, uint32_t warps, bool lane0) {
    __syncwarp();
    uint32_t before = 0;
    if (lane0) {
        asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], 1;\n" : "=r"(before) : "r"(smem_u32(count)) : "memory");
    }
    return lane0 && (before & (warps - 1)) == warps - 1;
}

// Arrives on the barrier once every cp.async this thread issued before has landed, without blocking the thread;
// counts as one of the barrier's expected arrivals (.noinc).
__device__ __forceinline__ void mbar_arrive_cp_async(uint64_t* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}

// Blocks until the phase with this parity has completed (acquire).
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
    const uint32_t addr = smem_u32(bar);
    uint32_t done;
    do {
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(addr), "r"(parity)
            : "memory");
    } while (!done);
}

// Named barriers (ids 1-15; 0 is __syncthreads): `threads` counts both the syncing and the arriving threads.
__device__ __forceinline__ void named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void named_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Adds `bytes` (a multiple of 16) of fp32 from shared memory to global memory (both 16-byte aligned) in the
// asynchronous proxy: the bulk reduce-add, no tensor map. The writers of src fence.proxy.async before handing it over.
__device__ __forceinline__ void bulk_reduce_add_f32(float* dst, const float* src, uint32_t bytes) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(dst),
                 "r"(smem_u32(src)), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void bulk_commit() {
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Blocks until at most N of this thread's bulk groups still read their shared-memory sources.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// Blocks until at most N of this thread's bulk groups are still incomplete (their global writes included).
template <int N>
__device__ __forceinline__ void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// A CUtensorMap (cuTensorMapEncodeTiled's 128 opaque bytes, 64-byte aligned), passed as a __grid_constant__ kernel
// parameter: the copies below read it where it lies, in parameter space.
struct alignas(64) TensorMap {
    uint64_t words[16];
};

// Fetches the tensor map into the cache that the bulk tensor copies read it from, ahead of the first copy.
__device__ __forceinline__ void tma_prefetch(const TensorMap* map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// One arrival on the barrier that also expects `bytes` more of asynchronous copies to complete (complete_tx) before
// the phase can end.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}

// The box of `map` at coordinates (c0, c1, c2) (innermost first) into shared memory at dst, by the tensor memory
// accelerator; its bytes count on the barrier as they land. Coordinates past the tensor's extent read zeros.
__device__ __forceinline__ void tma_load_3d(void* dst, const TensorMap* map, int c0, int c1, int c2, uint64_t* bar) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
        ::"r"(smem_u32(dst)), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(bar))
        : "memory");
}

// A ROWS x COLS tile of head `head` from row row0 into shared memory in the 128-byte swizzle (wgmma.cuh's Sw128:
// COLS / 64 panels of ROWS x 64 elements, 1024-byte aligned), one box of `map` (64 columns x ROWS rows) per panel,
// completing on `bar`.
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_tile(T* tile, const TensorMap* map, int row0, int head, uint64_t* bar) {
#pragma unroll
    for (int p = 0; p < COLS / 64; ++p) tma_load_3d(tile + p * ROWS * 64, map, p * 64, row0, head, bar);
}

// A persistent kernel's work queue (two ints the host zeroes once, when it makes them): work[0] counts the items of
// the launch's work order handed out so far (each CTA takes the next one when it is ready for it, so the items go out
// in the order's sequence, heaviest first, as a one-CTA-per-item grid's would, and no SM idles while another still has
// a list of them), work[1] counts the CTAs done. The last CTA to finish sets both back to 0 for the next launch.
__device__ __forceinline__ int next_work_item(int* work) { return atomicAdd(work, 1); }

__device__ __forceinline__ void work_items_done(int* work) {
    __threadfence();  // this CTA's last next_work_item before its count in work[1]
    if (atomicAdd(work + 1, 1) == (int)gridDim.x - 1) {
        work[0] = 0;
        work[1] = 0;
    }
}

// A persistent kernel's ring of work items in shared memory: the thread that takes the items from the work queue hands
// the CTA's j-th one, read from the tables (E), to the consumer threads in entry j % 2 (a full barrier of one arrival,
// an empty one of the consumers' arrivals), so that they start it without the tables' chain of dependent loads.
template <class E>
struct HandRing {
    uint64_t* full;
    uint64_t* empty;
    E* entry;  // two entries

    // the two entries' barriers and items from `at` on; returns the end
    __device__ __forceinline__ unsigned char* place(uint64_t* at) {
        full = at;
        empty = at + 2;
        entry = reinterpret_cast<E*>(at + 4);
        return reinterpret_cast<unsigned char*>(entry + 2);
    }

    // by one thread, before the CTA barrier: `consumers` arrivals release an entry
    __device__ __forceinline__ void init(uint32_t consumers) const {
        for (int e = 0; e < 2; ++e) {
            mbar_init(full + e, 1);
            mbar_init(empty + e, consumers);
        }
    }

    // by the taking thread: the CTA's item j, once the consumers have read item j - 2
    __device__ __forceinline__ void hand(int j, const E& r) const {
        if (j >= 2) mbar_wait(empty + (j & 1), ((j >> 1) - 1) & 1);
        entry[j & 1] = r;
        mbar_arrive(full + (j & 1));
    }

    // by every consumer thread, with init(consumer threads): the CTA's item j; every thread releases the entry itself,
    // an order compute-sanitizer's racecheck follows (it does not carry a lane's read through __syncwarp to lane 0's
    // arrive: with one arrival per warp it reported the next hand()'s write as a hazard). UNIFORM: the entry comes back
    // as lane 0 read it, broadcast to the warp (every lane read the same one), so the compiler knows it is warp-uniform
    // and what is computed from it (step counts, ring stages, their addresses and wgmma descriptors) can stay on the
    // uniform datapath; it won at D = 64 in the backward and at D = 128 in the forward, lost 1-3% in the D = 128
    // backward (H100, 2026-12-06)
    template <bool UNIFORM = false>
    __device__ __forceinline__ E take(int j) const {
        mbar_wait(full + (j & 1), (j >> 1) & 1);
        E r = entry[j & 1];
        mbar_arrive(empty + (j & 1));
        if constexpr (UNIFORM) {
            static_assert(sizeof(E) % 4 == 0, "an entry is whole 32-bit words");
            int words[sizeof(E) / 4];
            memcpy(words, &r, sizeof(E));
#pragma unroll
            for (int i = 0; i < (int)(sizeof(E) / 4); ++i) {
                words[i] = __shfl_sync(0xffffffffu, words[i], 0);
            }
            memcpy(&r, words, sizeof(E));
        }
        return r;
    }
};

template <int REGS>
__device__ __forceinline__ void regs_dealloc() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

template <int REGS>
__device__ __forceinline__ void regs_alloc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

}  // namespace saw
