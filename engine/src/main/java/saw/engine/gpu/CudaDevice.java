package saw.engine.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import jcuda.CudaException;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import saw.engine.attention.DType;
import saw.engine.attention.HalfFloats;

/**
 * One GPU with saw's kernels loaded: its primary context (made current on every calling thread), the module
 * loaded from the fatbin, launches that are checked and named, device buffers and CUDA events. A fault that leaves
 * the context unusable (an illegal address in a kernel, say) is reported, and the context is reset and the kernels
 * loaded again before the next call, so the next run starts afresh.
 */
final class CudaDevice implements AutoCloseable {
    static final String FATBIN = "/saw/kernels/saw_attention.fatbin";
    private static final int DEFAULT_SHARED_LIMIT = 48 * 1024;
    /** Errors after which the context cannot be used again (CUDA's "sticky" errors): it must be reset. */
    private static final Set<String> CONTEXT_LOST = Set.of("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_TIMEOUT",
            "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS",
            "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_ECC_UNCORRECTABLE",
            "CUDA_ERROR_CONTEXT_IS_DESTROYED");

    final Driver driver;
    private final byte[] image;
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final Map<String, Integer> sharedOptIn = new HashMap<>();
    private final int maxSharedOptIn;
    private final int multiProcessors;
    private final List<String> pending = new ArrayList<>();
    private CUmodule module;
    private boolean syncEachLaunch = true;
    private boolean lost;
    /** Counts context resets: buffers and events from an earlier context are gone and are not freed again. */
    private int generation;
    /** The persistent kernels' work queues, one per stream (see {@link #workQueue}); the default stream's key is null. */
    private final Map<CUstream, DeviceBuffer> workQueues = new IdentityHashMap<>();

    /** GPU {@code ordinal} through JCuda, with the kernels of the fatbin resource. */
    CudaDevice(int ordinal) {
        this(new JCudaDriverCalls(), ordinal, readFatbin());
    }

    CudaDevice(Driver driver, int ordinal, byte[] image) {
        this.driver = driver;
        this.image = image;
        check("initialising the CUDA driver", () -> driver.open(ordinal));
        this.maxSharedOptIn = check("reading the GPU's shared memory limit", driver::maxSharedPerBlockOptIn);
        this.multiProcessors = check("reading the GPU's SM count", driver::multiProcessors);
        this.module = check("loading the kernel module (" + image.length + " bytes)", () -> driver.loadModule(image));
    }

    /**
     * Makes this device's context current on the calling thread; every entry point calls it first. After a fault
     * that lost the context, resets it and loads the kernels again.
     */
    void makeCurrent() {
        if (lost) {
            try {
                check("resetting the GPU after the fault", driver::reset);
            } catch (GpuException e) {
                // sticky faults (an illegal address, say) poison CUDA for the rest of the process
                throw new GpuException("the GPU context was lost to a kernel fault earlier in this process and CUDA cannot "
                        + "reset it (" + e.getMessage() + "); restart saw to use the GPU again", e);
            }
            generation++;
            functions.clear();
            sharedOptIn.clear();
            pending.clear();
            module = check("loading the kernel module again (" + image.length + " bytes)", () -> driver.loadModule(image));
            lost = false;
        }
        check("making the CUDA context current", driver::makeCurrent);
    }

    int generation() {
        return generation;
    }

    /** Free device memory in bytes, as the driver reports it. */
    long freeBytes() {
        return check("reading the free GPU memory", driver::memory)[0];
    }

    /** Whether to synchronise after every launch (verification) or only at {@link #sync} (timing). */
    void syncEachLaunch(boolean on) {
        this.syncEachLaunch = on;
    }

    boolean hasKernel(String name) {
        try {
            function(name);
            return true;
        } catch (GpuException e) {
            return false;
        }
    }

    private CUfunction function(String name) {
        CUfunction f = functions.get(name);
        if (f == null) {
            f = check("finding kernel " + name + " in the fatbin", () -> driver.function(module, name));
            functions.put(name, f);
        }
        return f;
    }

    /** Launches a kernel; arguments are DeviceBuffers, Integers, Longs and Floats in the kernel's order. */
    void launch(LaunchShape shape, Object... args) {
        launchOn(null, shape, args);
    }

    /** As {@link #launch}, on {@code stream} of this device's context (null: the default stream). */
    void launchOn(CUstream stream, LaunchShape shape, Object... args) {
        if (shape.sharedBytes() > maxSharedOptIn) {
            throw new GpuException(shape + " needs more shared memory than this GPU allows per block (" + maxSharedOptIn + " B)");
        }
        CUfunction f = function(shape.kernel());
        if (shape.sharedBytes() > DEFAULT_SHARED_LIMIT && sharedOptIn.getOrDefault(shape.kernel(), 0) < shape.sharedBytes()) {
            check("raising the shared memory limit of " + shape, () -> driver.setMaxDynamicShared(f, shape.sharedBytes()));
            sharedOptIn.put(shape.kernel(), shape.sharedBytes());
        }
        int grid = shape.persistent() ? (int) Math.min(shape.grid(), multiProcessors) : (int) shape.grid();
        NativePointerObject[] params = new NativePointerObject[args.length + (shape.persistent() ? 2 : 0)];
        for (int i = 0; i < args.length; i++) {
            params[i] = param(args[i]);
        }
        if (shape.persistent()) {
            params[args.length] = param((int) shape.grid());
            params[args.length + 1] = param(workQueue(stream));
        }
        check("launching " + shape, () -> driver.launch(f, grid, shape.block(), shape.sharedBytes(), Pointer.to(params),
                stream));
        pending.add(shape.toString());
        if (syncEachLaunch) {
            sync();
        }
    }

    /**
     * {@code args} followed by the tensor map of {@code map} over each of {@code buffers} (kernel arguments of the
     * kernels that load with the tensor memory accelerator; {@code what} names the buffers in an error), each encoded
     * once per buffer and geometry.
     */
    Object[] withTileMaps(Object[] args, TileMap map, String what, DeviceBuffer... buffers) {
        Object[] all = Arrays.copyOf(args, args.length + buffers.length);
        for (int i = 0; i < buffers.length; i++) {
            DeviceBuffer b = buffers[i];
            all[args.length + i] = b.tileMap(map, () -> check("encoding the tensor maps of " + what + " (" + map + ")",
                    () -> driver.encodeTileMap(b.ptr, map)));
        }
        return all;
    }

    /** Waits for the launches since the last sync; an asynchronous fault names them. */
    void sync() {
        try {
            check(() -> "kernel " + String.join(", then ", pending), () -> {
                driver.synchronize();
                return null;
            });
        } finally {
            pending.clear();
        }
    }

    /**
     * Two ints, zero between launches, that a persistent kernel hands its rows out with (work[0]: rows taken, work[1]:
     * CTAs done); its last CTA sets them back to zero, so they are zeroed only when made. One per stream: kernels on
     * one stream run one after the other, while those of two streams (a ring's virtual devices share a context) may
     * run at once and would take each other's rows.
     */
    private DeviceBuffer workQueue(CUstream stream) {
        DeviceBuffer queue = workQueues.get(stream);
        if (queue == null || queue.generation() != generation) {
            queue = buffer("the persistent kernels' work queue", 8);
            queue.fill32("the persistent kernels' work queue", 0);
            sync();  // the memset runs on the default stream; `stream` may not wait for it
            workQueues.put(stream, queue);
        }
        return queue;
    }

    /** Device memory for {@code what}; an allocation that fails says how much was asked and how much is free. */
    DeviceBuffer buffer(String what, long bytes) {
        return new DeviceBuffer(this, what, bytes);
    }

    DeviceBuffer upload(String what, int[] values) {
        DeviceBuffer b = buffer(what, 4L * values.length);
        if (values.length > 0) {
            b.copyIn(Pointer.to(values), 4L * values.length);
        }
        return b;
    }

    DeviceBuffer upload(String what, short[] values) {
        DeviceBuffer b = buffer(what, 2L * values.length);
        if (values.length > 0) {
            b.copyIn(Pointer.to(values), 2L * values.length);
        }
        return b;
    }

    /** {@code values} encoded as 16-bit {@code type} and copied to a new buffer. */
    DeviceBuffer uploadHalves(String what, DType type, FloatBuffer values) {
        short[] bits = new short[values.remaining()];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = HalfFloats.encode(type, values.get(i));
        }
        return upload(what, bits);
    }

    /** {@code values} as fp32 bits, copied to a new buffer. */
    DeviceBuffer uploadFloats(String what, FloatBuffer values) {
        int[] bits = new int[values.remaining()];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = Float.floatToRawIntBits(values.get(i));
        }
        return upload(what, bits);
    }

    /** A tensor of {@code n} 16-bit {@code type} elements drawn on the device by the fill kernel from {@code seed}. */
    DeviceBuffer drawn(String what, DType type, long n, long seed) {
        DeviceBuffer b = buffer(what, 2 * n);
        try {
            launch(KernelCatalog.fill(type, n), b, n, seed);
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
        return b;
    }

    CUevent event() {
        return check("creating a CUDA event", driver::eventCreate);
    }

    void record(CUevent e) {
        check("recording a CUDA event", () -> driver.eventRecord(e));
    }

    /** Milliseconds between two recorded events, after waiting for the second. */
    float elapsedMs(CUevent start, CUevent end) {
        try {
            return check(() -> "kernel " + String.join(", then ", pending), () -> driver.eventElapsedMs(start, end));
        } finally {
            pending.clear();
        }
    }

    /** Destroys an event made in the current context; one from a context since reset is gone already. */
    void destroy(CUevent e, int madeIn) {
        if (madeIn == generation && !lost) {
            quietly(() -> driver.eventDestroy(e));
        }
    }

    /** Runs a driver call; on failure throws a GpuException "WHAT failed: CUDA_ERROR_..." (see {@link #failure}). */
    void check(String what, Runnable call) {
        check(() -> what, () -> {
            call.run();
            return null;
        });
    }

    <T> T check(String what, Supplier<T> call) {
        return check(() -> what, call);
    }

    /** As {@link #check(String, Supplier)}, with the description made only when the call fails. */
    private <T> T check(Supplier<String> what, Supplier<T> call) {
        try {
            return call.get();
        } catch (CudaException e) {
            throw failure(what.get(), e);
        }
    }

    /** The exception for a failed call (CudaErrors' sentence); notes a lost context so that the next call resets it. */
    GpuException failure(String what, CudaException e) {
        GpuException failed = CudaErrors.failed(what, e);
        if (CONTEXT_LOST.contains(e.getMessage())) {
            lost = true;
            return new GpuException(failed.getMessage() + "; the GPU context was lost (saw tries to reset it before the next run)", e);
        }
        return failed;
    }

    /** Runs a clean-up call, never throwing: clean-up must not hide the failure that led to it. */
    void quietly(Runnable call) {
        try {
            call.run();
        } catch (CudaException e) {
            failure("cleaning up", e);
        }
    }

    private static NativePointerObject param(Object a) {
        if (a instanceof DeviceBuffer b) {
            return Pointer.to(b.ptr);
        } else if (a instanceof Integer i) {
            return Pointer.to(new int[] {i});
        } else if (a instanceof Long l) {
            return Pointer.to(new long[] {l});
        } else if (a instanceof Float f) {
            return Pointer.to(new float[] {f});
        } else if (a instanceof byte[] bytes) {
            return Pointer.to(bytes);
        }
        throw new IllegalArgumentException("unsupported kernel argument " + a);
    }

    /** The first 16 hex digits of the fatbin's SHA-256, or "none" when this build has no kernels. */
    static String kernelBuildId() {
        try (InputStream in = CudaDevice.class.getResourceAsStream(FATBIN)) {
            if (in == null) {
                return "none";
            }
            byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(in.readAllBytes());
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 8; i++) {
                sb.append(String.format("%02x", h[i]));
            }
            return sb.toString();
        } catch (IOException | java.security.NoSuchAlgorithmException e) {
            return "unreadable";
        }
    }

    private static byte[] readFatbin() {
        try (InputStream in = CudaDevice.class.getResourceAsStream(FATBIN)) {
            if (in == null) {
                throw new GpuException("this build of saw has no CUDA kernels (" + FATBIN + " is missing)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new GpuException("reading the kernel fatbin failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        workQueues.values().forEach(DeviceBuffer::close);
        if (!lost) {
            quietly(driver::makeCurrent);
            quietly(() -> driver.unloadModule(module));
        }
        quietly(driver::close);
    }
}
