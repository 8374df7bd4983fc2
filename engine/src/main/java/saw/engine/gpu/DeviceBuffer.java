package saw.engine.gpu;

import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/** Device memory owned by one run; freed on close (never throwing, so that it does not hide a run's failure). */
final class DeviceBuffer implements AutoCloseable {
    final CUdeviceptr ptr;
    final long bytes;
    private final CudaDevice cuda;
    private final String what;
    private final int generation;
    private boolean freed;

    DeviceBuffer(CudaDevice cuda, String what, long bytes) {
        this.cuda = cuda;
        this.what = what;
        this.bytes = Math.max(4, bytes);
        this.generation = cuda.generation();
        CUdeviceptr p;
        try {
            p = cuda.driver.alloc(this.bytes);
        } catch (CudaException e) {
            GpuException failed = cuda.failure("allocating " + bytes + " bytes of GPU memory for " + what, e);
            throw "CUDA_ERROR_OUT_OF_MEMORY".equals(e.getMessage()) ? new GpuException(failed.getMessage() + " (" + freeNow() + ")", e) : failed;
        }
        this.ptr = p;
    }

    private String freeNow() {
        try {
            long[] m = cuda.driver.memory();
            return m[0] + " of " + m[1] + " bytes free";
        } catch (CudaException e) {
            return "free memory unknown";
        }
    }

    void copyIn(Pointer src, long n) {
        cuda.check("copying " + what + " to the GPU", () -> cuda.driver.copyToDevice(ptr, src, n));
    }

    short[] readShorts(String name, int n) {
        short[] out = new short[n];
        cuda.check("copying " + name + " from the GPU", () -> cuda.driver.copyToHost(Pointer.to(out), ptr, 2L * n));
        return out;
    }

    float[] readFloats(String name, int n) {
        float[] out = new float[n];
        cuda.check("copying " + name + " from the GPU", () -> cuda.driver.copyToHost(Pointer.to(out), ptr, 4L * n));
        return out;
    }

    /** Fills with a 16-bit pattern (0xffff is NaN in bf16 and fp16). */
    void fill16(String name, short pattern) {
        cuda.check("filling " + name, () -> cuda.driver.fill16(ptr, pattern, bytes / 2));
    }

    void fill32(String name, int pattern) {
        cuda.check("filling " + name, () -> cuda.driver.fill32(ptr, pattern, bytes / 4));
    }

    /** Frees the memory, unless a context reset since the allocation freed it already. */
    @Override
    public void close() {
        if (!freed) {
            freed = true;
            if (generation == cuda.generation()) {
                cuda.quietly(() -> cuda.driver.free(ptr));
            }
        }
    }
}
