package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * A CUDA driver in Java, for provoking faults without a GPU: it keeps account of device memory, knows which kernels
 * its "fatbin" holds, runs kernels as no-ops, and fails as told: allocations past the memory (or past a limit, as
 * fragmentation does), launches, and kernels that lose the context, after which every call fails until a reset,
 * as CUDA's sticky errors do.
 */
final class FakeDriver implements Driver {
    static final String LOST = "CUDA_ERROR_ILLEGAL_ADDRESS";

    final long total;
    final Set<String> kernels = new HashSet<>(KernelCatalog.allNames());
    /** Allocations larger than this fail even when memory is free. */
    long largestAllocation = Long.MAX_VALUE;
    /** The next launch fails with this error (then it is cleared). */
    String failNextLaunch;
    /** The next launch of this kernel faults while it runs: the next wait reports a lost context. */
    String faultingKernel;
    /** When >= 0, only a launch of {@link #faultingKernel} with this grid faults. */
    int faultingGrid = -1;
    /** What multiProcessors() reports. */
    int multiProcessors = 132;
    /** Why {@link #open} fails, or null. */
    String openFails;

    final Map<CUdeviceptr, Long> live = new IdentityHashMap<>();
    /** Each allocation's number in order, which {@link #timeline} names a fill by. */
    private final Map<CUdeviceptr, Integer> allocationNumbers = new IdentityHashMap<>();
    private final Map<CUfunction, String> functionNames = new IdentityHashMap<>();
    private final Set<CUmodule> modules = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    final List<String> launched = new ArrayList<>();
    /** Fills ({@code fill BYTES}), event records ({@code event}) and launches (the kernel's name), in order. */
    final List<String> timeline = new ArrayList<>();
    /** The grid of each kernel's latest launch. */
    final Map<String, Integer> lastGrid = new HashMap<>();

    /**
     * The grid that {@code kernel} was last launched with when {@code run} drives a backend on a fake GPU with
     * {@code multiProcessors} SMs and compute capability 9 (the launch must have happened).
     */
    static int gridOf(String kernel, int multiProcessors, Consumer<GpuBackend> run) {
        FakeDriver driver = new FakeDriver(8L << 30);
        driver.multiProcessors = multiProcessors;
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", 9)) {
            run.accept(gpu);
            assertTrue(driver.launched.contains(kernel), kernel + " launched: " + driver.launched);
            return driver.lastGrid.get(kernel);
        }
    }

    /** One copy between host and device: its direction, device byte offset and length. */
    record Copy(boolean toHost, long deviceOffset, long bytes) {}

    /** Every copy, in order. */
    final List<Copy> copies = new ArrayList<>();
    /** One tensor map asked for (of a live allocation, or the request fails): the allocation it maps, and what. */
    record MapRequest(CUdeviceptr base, TileMap map) {}

    /** Every tensor map asked for, in order. */
    final List<MapRequest> tileMaps = new ArrayList<>();
    /** The most memory allocated at once. */
    long peak;
    int resets;
    int modulesLoaded;
    int events;
    private boolean faultPending;
    private boolean lost;
    private boolean open;

    FakeDriver(long totalBytes) {
        this.total = totalBytes;
    }

    long used() {
        return live.values().stream().mapToLong(Long::longValue).sum();
    }

    private void usable() {
        if (!open) {
            throw new CudaException("CUDA_ERROR_NOT_INITIALIZED");
        }
        if (lost) {
            throw new CudaException(LOST);
        }
    }

    @Override
    public void open(int ordinal) {
        if (openFails != null) {
            throw new CudaException(openFails);
        }
        open = true;
    }

    @Override
    public void makeCurrent() {
        usable();
    }

    @Override
    public void reset() {
        resets++;
        live.clear();
        modules.clear();
        functionNames.clear();
        events = 0;
        lost = false;
        faultPending = false;
    }

    @Override
    public void close() {
        open = false;
    }

    @Override
    public int maxSharedPerBlockOptIn() {
        usable();
        return 227 * 1024;
    }

    @Override
    public int multiProcessors() {
        usable();
        return multiProcessors;
    }

    @Override
    public long[] memory() {
        usable();
        return new long[] {total - used(), total};
    }

    @Override
    public CUmodule loadModule(byte[] image) {
        usable();
        CUmodule m = new CUmodule();
        modules.add(m);
        modulesLoaded++;
        return m;
    }

    @Override
    public void unloadModule(CUmodule module) {
        usable();
        modules.remove(module);
    }

    @Override
    public CUfunction function(CUmodule module, String name) {
        usable();
        if (!modules.contains(module)) {
            throw new CudaException("CUDA_ERROR_INVALID_HANDLE");
        }
        if (!kernels.contains(name)) {
            throw new CudaException("CUDA_ERROR_NOT_FOUND");
        }
        CUfunction f = new CUfunction();
        functionNames.put(f, name);
        return f;
    }

    @Override
    public void setMaxDynamicShared(CUfunction function, int bytes) {
        usable();
    }

    @Override
    public void launch(CUfunction function, int grid, int block, int sharedBytes, Pointer params) {
        usable();
        String name = functionNames.get(function);
        if (name == null) {
            throw new CudaException("CUDA_ERROR_INVALID_HANDLE");
        }
        if (block > 1024) {
            throw new CudaException("CUDA_ERROR_INVALID_VALUE");
        }
        if (failNextLaunch != null) {
            String error = failNextLaunch;
            failNextLaunch = null;
            throw new CudaException(error);
        }
        launched.add(name);
        timeline.add(name);
        lastGrid.put(name, grid);
        if (name.equals(faultingKernel) && (faultingGrid < 0 || grid == faultingGrid)) {
            faultingKernel = null;
            faultPending = true;
        }
    }

    /** Streams are not modelled: a launch on one runs as on the default stream. */
    @Override
    public void launch(CUfunction function, int grid, int block, int sharedBytes, Pointer params, jcuda.driver.CUstream stream) {
        launch(function, grid, block, sharedBytes, params);
    }

    /** A wait: reports a fault of the launches since the last wait; from then on the context is lost. */
    private void await() {
        usable();
        if (faultPending) {
            faultPending = false;
            lost = true;
            throw new CudaException(LOST);
        }
    }

    @Override
    public void synchronize() {
        await();
    }

    @Override
    public byte[] encodeTileMap(CUdeviceptr base, TileMap map) {
        usable();
        if (!live.containsKey(base)) {
            throw new CudaException("CUDA_ERROR_INVALID_VALUE");
        }
        tileMaps.add(new MapRequest(base, map));
        return new byte[128];
    }

    @Override
    public CUdeviceptr alloc(long bytes) {
        usable();
        if (bytes > largestAllocation || bytes > total - used()) {
            throw new CudaException("CUDA_ERROR_OUT_OF_MEMORY");
        }
        CUdeviceptr p = new CUdeviceptr();
        live.put(p, bytes);
        allocationNumbers.put(p, allocationNumbers.size());
        peak = Math.max(peak, used());
        return p;
    }

    @Override
    public void free(CUdeviceptr ptr) {
        usable();
        if (live.remove(ptr) == null) {
            throw new CudaException("CUDA_ERROR_INVALID_VALUE");
        }
    }

    private void touch(CUdeviceptr ptr, long offset, long bytes) {
        usable();
        Long size = live.get(ptr);
        if (size == null || offset < 0 || bytes < 0 || offset + bytes > size) {
            throw new CudaException("CUDA_ERROR_INVALID_VALUE");
        }
    }

    @Override
    public void copyToDevice(CUdeviceptr dst, long dstOffset, Pointer src, long bytes) {
        touch(dst, dstOffset, bytes);
        copies.add(new Copy(false, dstOffset, bytes));
    }

    @Override
    public void copyToHost(Pointer dst, CUdeviceptr src, long srcOffset, long bytes) {
        await();
        touch(src, srcOffset, bytes);
        copies.add(new Copy(true, srcOffset, bytes));
    }

    @Override
    public void fill16(CUdeviceptr ptr, short value, long count) {
        touch(ptr, 0, 2 * count);
        timeline.add("fill " + 2 * count + " #" + allocationNumbers.get(ptr));
    }

    @Override
    public void fill32(CUdeviceptr ptr, int value, long count) {
        touch(ptr, 0, 4 * count);
        timeline.add("fill " + 4 * count + " #" + allocationNumbers.get(ptr));
    }

    @Override
    public CUevent eventCreate() {
        usable();
        events++;
        return new CUevent();
    }

    @Override
    public void eventRecord(CUevent event) {
        usable();
        timeline.add("event");
    }

    @Override
    public float eventElapsedMs(CUevent start, CUevent end) {
        await();
        return 0.5f;
    }

    @Override
    public void eventDestroy(CUevent event) {
        usable();
        events--;
    }
}
