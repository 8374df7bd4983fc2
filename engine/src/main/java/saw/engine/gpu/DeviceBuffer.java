package saw.engine.gpu;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/** Device memory owned by one run; freed on close. */
final class DeviceBuffer implements AutoCloseable {
    final CUdeviceptr ptr = new CUdeviceptr();
    final long bytes;
    private boolean freed;

    DeviceBuffer(String what, long bytes) {
        this.bytes = Math.max(4, bytes);
        CudaErrors.check("allocating " + bytes + " bytes of GPU memory for " + what,
                () -> JCudaDriver.cuMemAlloc(ptr, this.bytes));
    }

    static DeviceBuffer of(String what, int[] values) {
        DeviceBuffer b = new DeviceBuffer(what, 4L * values.length);
        if (values.length > 0) {
            CudaErrors.check("copying " + what + " to the GPU", () -> JCudaDriver.cuMemcpyHtoD(b.ptr, Pointer.to(values), 4L * values.length));
        }
        return b;
    }

    static DeviceBuffer of(String what, short[] values) {
        DeviceBuffer b = new DeviceBuffer(what, 2L * values.length);
        CudaErrors.check("copying " + what + " to the GPU", () -> JCudaDriver.cuMemcpyHtoD(b.ptr, Pointer.to(values), 2L * values.length));
        return b;
    }

    short[] readShorts(String what, int n) {
        short[] out = new short[n];
        CudaErrors.check("copying " + what + " from the GPU", () -> JCudaDriver.cuMemcpyDtoH(Pointer.to(out), ptr, 2L * n));
        return out;
    }

    float[] readFloats(String what, int n) {
        float[] out = new float[n];
        CudaErrors.check("copying " + what + " from the GPU", () -> JCudaDriver.cuMemcpyDtoH(Pointer.to(out), ptr, 4L * n));
        return out;
    }

    /** Fills with a 16-bit pattern (0xffff is NaN in bf16 and fp16). */
    void fill16(String what, short pattern) {
        CudaErrors.check("filling " + what, () -> JCudaDriver.cuMemsetD16(ptr, pattern, bytes / 2));
    }

    void fill32(String what, int pattern) {
        CudaErrors.check("filling " + what, () -> JCudaDriver.cuMemsetD32(ptr, pattern, bytes / 4));
    }

    @Override
    public void close() {
        if (!freed) {
            freed = true;
            JCudaDriver.cuMemFree(ptr);
        }
    }
}
