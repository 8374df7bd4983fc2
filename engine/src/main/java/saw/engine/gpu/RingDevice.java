package saw.engine.gpu;

import java.lang.reflect.Method;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One device of a ring: a GPU's context (shared by every virtual device on that GPU) with two streams of its own, one
 * for compute and one for communication. Both are non-blocking, so neither waits for the other except through the
 * events the ring executor places.
 */
final class RingDevice implements AutoCloseable {
    final int rank;
    final int ordinal;
    final CudaDevice cuda;
    final CUstream compute = new CUstream();
    final CUstream comm = new CUstream();
    private final CUevent computeMark;

    RingDevice(int rank, int ordinal, CudaDevice cuda) {
        this.rank = rank;
        this.ordinal = ordinal;
        this.cuda = cuda;
        cuda.makeCurrent();
        cuda.check("creating device " + rank + "'s compute stream", () -> JCudaDriver.cuStreamCreate(compute,
                CUstream_flags.CU_STREAM_NON_BLOCKING));
        cuda.check("creating device " + rank + "'s communication stream", () -> JCudaDriver.cuStreamCreate(comm,
                CUstream_flags.CU_STREAM_NON_BLOCKING));
        computeMark = syncEvent();
    }

    CUcontext context() {
        return ((JCudaDriverCalls) cuda.driver).context();
    }

    /** An event for ordering only (no timing, cheaper to record and wait for). */
    CUevent syncEvent() {
        CUevent e = new CUevent();
        cuda.check("creating a CUDA event", () -> JCudaDriver.cuEventCreate(e, CUevent_flags.CU_EVENT_DISABLE_TIMING));
        return e;
    }

    CUevent timingEvent() {
        CUevent e = new CUevent();
        cuda.check("creating a CUDA event", () -> JCudaDriver.cuEventCreate(e, CUevent_flags.CU_EVENT_DEFAULT));
        return e;
    }

    void record(CUevent e, CUstream on) {
        cuda.check("recording an event on device " + rank, () -> JCudaDriver.cuEventRecord(e, on));
    }

    void wait(CUstream on, CUevent e) {
        cuda.check("making a stream of device " + rank + " wait for an event", () -> JCudaDriver.cuStreamWaitEvent(on, e, 0));
    }

    /** The communication stream waits for everything issued on the compute stream so far. */
    void commWaitsCompute() {
        record(computeMark, compute);
        wait(comm, computeMark);
    }

    void fill32(DeviceBuffer b, int pattern, CUstream on) {
        cuda.check("filling " + b.bytes + " bytes on device " + rank, () -> JCudaDriver.cuMemsetD32Async(b.ptr, pattern,
                b.bytes / 4, on));
    }

    void copy(CUdeviceptr dst, CUdeviceptr src, long bytes, CUstream on) {
        cuda.check("copying " + bytes + " bytes on device " + rank, () -> JCudaDriver.cuMemcpyDtoDAsync(dst, src, bytes, on));
    }

    void synchronize() {
        cuda.check("waiting for device " + rank + "'s compute stream", () -> JCudaDriver.cuStreamSynchronize(compute));
        cuda.check("waiting for device " + rank + "'s communication stream", () -> JCudaDriver.cuStreamSynchronize(comm));
    }

    float elapsedMs(CUevent from, CUevent to) {
        float[] ms = new float[1];
        cuda.check("reading a step time on device " + rank, () -> {
            JCudaDriver.cuEventSynchronize(to);
            JCudaDriver.cuEventElapsedTime(ms, from, to);
        });
        return ms[0];
    }

    void destroy(CUevent e) {
        cuda.quietly(() -> JCudaDriver.cuEventDestroy(e));
    }

    @Override
    public void close() {
        cuda.quietly(() -> {
            JCudaDriver.cuCtxSetCurrent(context());
            JCudaDriver.cuEventDestroy(computeMark);
            JCudaDriver.cuStreamDestroy(compute);
            JCudaDriver.cuStreamDestroy(comm);
        });
    }

    /** The raw address or handle JCuda holds (NCCL takes device addresses and streams as plain pointers). */
    static long address(NativePointerObject p) {
        try {
            long base = (long) NATIVE_POINTER.invoke(p);
            return p instanceof Pointer ? base + (long) BYTE_OFFSET.invoke(p) : base;
        } catch (ReflectiveOperationException e) {
            throw new GpuException("JCuda's handle for " + p + " could not be read: " + e.getMessage(), e);
        }
    }

    private static final Method NATIVE_POINTER = accessible(NativePointerObject.class, "getNativePointer");
    private static final Method BYTE_OFFSET = accessible(Pointer.class, "getByteOffset");

    private static Method accessible(Class<?> c, String name) {
        try {
            Method m = c.getDeclaredMethod(name);
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExceptionInInitializerError("this JCuda has no " + c.getSimpleName() + "." + name + "(): " + e);
        }
    }
}
