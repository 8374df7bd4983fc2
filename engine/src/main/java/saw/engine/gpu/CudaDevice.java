package saw.engine.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jcuda.CudaException;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * One GPU with saw's kernels loaded: its primary context (made current on every calling thread), the module
 * loaded from the fatbin resource, launches that are checked and named, and CUDA events.
 */
final class CudaDevice implements AutoCloseable {
    static final String FATBIN = "/saw/kernels/saw_attention.fatbin";
    private static final int DEFAULT_SHARED_LIMIT = 48 * 1024;

    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();
    private final CUmodule module = new CUmodule();
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final Map<String, Integer> sharedOptIn = new HashMap<>();
    private final int maxSharedOptIn;
    private final List<String> pending = new ArrayList<>();
    private boolean syncEachLaunch = true;

    CudaDevice(int ordinal) {
        CudaErrors.check("initialising the CUDA driver", () -> {
            JCudaDriver.setExceptionsEnabled(true);
            JCudaDriver.cuInit(0);
            JCudaDriver.cuDeviceGet(device, ordinal);
            JCudaDriver.cuDevicePrimaryCtxRetain(context, device);
            JCudaDriver.cuCtxSetCurrent(context);
        });
        int[] smem = new int[1];
        JCudaDriver.cuDeviceGetAttribute(smem, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
        this.maxSharedOptIn = smem[0];
        byte[] image = readFatbin();
        CudaErrors.check("loading the kernel module (" + image.length + " bytes)", () -> JCudaDriver.cuModuleLoadData(module, image));
    }

    /** Makes this device's context current on the calling thread; every entry point calls it first. */
    void makeCurrent() {
        CudaErrors.check("making the CUDA context current", () -> JCudaDriver.cuCtxSetCurrent(context));
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
            CUfunction fn = new CUfunction();
            CudaErrors.check("finding kernel " + name + " in the fatbin", () -> JCudaDriver.cuModuleGetFunction(fn, module, name));
            functions.put(name, fn);
            f = fn;
        }
        return f;
    }

    /** Launches a kernel; arguments are DeviceBuffers, Integers, Longs and Floats in the kernel's order. */
    void launch(LaunchShape shape, Object... args) {
        if (shape.sharedBytes() > maxSharedOptIn) {
            throw new GpuException(shape + " needs more shared memory than this GPU allows per block (" + maxSharedOptIn + " B)");
        }
        CUfunction f = function(shape.kernel());
        if (shape.sharedBytes() > DEFAULT_SHARED_LIMIT && sharedOptIn.getOrDefault(shape.kernel(), 0) < shape.sharedBytes()) {
            CudaErrors.check("raising the shared memory limit of " + shape, () -> JCudaDriver.cuFuncSetAttribute(f,
                    CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shape.sharedBytes()));
            sharedOptIn.put(shape.kernel(), shape.sharedBytes());
        }
        NativePointerObject[] params = new NativePointerObject[args.length];
        for (int i = 0; i < args.length; i++) {
            params[i] = param(args[i]);
        }
        CudaErrors.check("launching " + shape, () -> JCudaDriver.cuLaunchKernel(f, (int) shape.grid(), 1, 1,
                shape.block(), 1, 1, shape.sharedBytes(), null, Pointer.to(params), null));
        pending.add(shape.toString());
        if (syncEachLaunch) {
            sync();
        }
    }

    /** Waits for the launches since the last sync; an asynchronous fault names them. */
    void sync() {
        try {
            JCudaDriver.cuCtxSynchronize();
        } catch (CudaException e) {
            throw new GpuException("kernel " + String.join(", then ", pending) + " failed: " + e.getMessage(), e);
        } finally {
            pending.clear();
        }
    }

    CUevent event() {
        CUevent e = new CUevent();
        CudaErrors.check("creating a CUDA event", () -> JCudaDriver.cuEventCreate(e, 0));
        return e;
    }

    void record(CUevent e) {
        CudaErrors.check("recording a CUDA event", () -> JCudaDriver.cuEventRecord(e, null));
    }

    /** Milliseconds between two recorded events, after waiting for the second. */
    float elapsedMs(CUevent start, CUevent end) {
        try {
            JCudaDriver.cuEventSynchronize(end);
        } catch (CudaException e) {
            throw new GpuException("kernel " + String.join(", then ", pending) + " failed: " + e.getMessage(), e);
        }
        pending.clear();
        float[] ms = new float[1];
        CudaErrors.check("reading a CUDA event time", () -> JCudaDriver.cuEventElapsedTime(ms, start, end));
        return ms[0];
    }

    static void destroy(CUevent e) {
        JCudaDriver.cuEventDestroy(e);
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
        }
        throw new IllegalArgumentException("unsupported kernel argument " + a);
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
        makeCurrent();
        JCudaDriver.cuModuleUnload(module);
        JCudaDriver.cuDevicePrimaryCtxRelease(device);
    }
}
