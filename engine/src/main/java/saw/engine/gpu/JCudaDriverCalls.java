package saw.engine.gpu;

import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/** {@link Driver} on the real CUDA driver, through JCuda. */
final class JCudaDriverCalls implements Driver {
    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();

    @Override
    public void open(int ordinal) {
        JCudaNatives.initDriver();
        JCudaDriver.cuDeviceGet(device, ordinal);
        JCudaDriver.cuDevicePrimaryCtxRetain(context, device);
        JCudaDriver.cuCtxSetCurrent(context);
    }

    @Override
    public void makeCurrent() {
        JCudaDriver.cuCtxSetCurrent(context);
    }

    @Override
    public void reset() {
        try {
            JCudaDriver.cuDevicePrimaryCtxRelease(device);
        } catch (CudaException e) {
            // a context lost to a fault may refuse even this; the reset below destroys it regardless
        }
        JCudaDriver.cuDevicePrimaryCtxReset(device);
        JCudaDriver.cuDevicePrimaryCtxRetain(context, device);
        JCudaDriver.cuCtxSetCurrent(context);
    }

    @Override
    public void close() {
        JCudaDriver.cuDevicePrimaryCtxRelease(device);
    }

    @Override
    public int maxSharedPerBlockOptIn() {
        int[] smem = new int[1];
        JCudaDriver.cuDeviceGetAttribute(smem, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
        return smem[0];
    }

    @Override
    public int multiProcessors() {
        int[] sms = new int[1];
        JCudaDriver.cuDeviceGetAttribute(sms, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
        return sms[0];
    }

    @Override
    public long[] memory() {
        long[] free = new long[1];
        long[] total = new long[1];
        JCudaDriver.cuMemGetInfo(free, total);
        return new long[] {free[0], total[0]};
    }

    @Override
    public CUmodule loadModule(byte[] image) {
        CUmodule module = new CUmodule();
        JCudaDriver.cuModuleLoadData(module, image);
        return module;
    }

    @Override
    public void unloadModule(CUmodule module) {
        JCudaDriver.cuModuleUnload(module);
    }

    @Override
    public CUfunction function(CUmodule module, String name) {
        CUfunction f = new CUfunction();
        JCudaDriver.cuModuleGetFunction(f, module, name);
        return f;
    }

    @Override
    public void setMaxDynamicShared(CUfunction function, int bytes) {
        JCudaDriver.cuFuncSetAttribute(function, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
    }

    @Override
    public byte[] encodeTileMap(CUdeviceptr base, TileMap map) {
        return CudaTensorMaps.encode(RingDevice.address(base), map);
    }

    @Override
    public void launch(CUfunction function, int grid, int block, int sharedBytes, Pointer params) {
        JCudaDriver.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, sharedBytes, null, params, null);
    }

    @Override
    public void launch(CUfunction function, int grid, int block, int sharedBytes, Pointer params, CUstream stream) {
        JCudaDriver.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, sharedBytes, stream, params, null);
    }

    /** The primary context, for the ring's streams and peer copies. */
    CUcontext context() {
        return context;
    }

    CUdevice device() {
        return device;
    }

    @Override
    public void synchronize() {
        JCudaDriver.cuCtxSynchronize();
    }

    @Override
    public CUdeviceptr alloc(long bytes) {
        CUdeviceptr ptr = new CUdeviceptr();
        JCudaDriver.cuMemAlloc(ptr, bytes);
        return ptr;
    }

    @Override
    public void free(CUdeviceptr ptr) {
        JCudaDriver.cuMemFree(ptr);
    }

    @Override
    public void copyToDevice(CUdeviceptr dst, long dstOffset, Pointer src, long bytes) {
        JCudaDriver.cuMemcpyHtoD(dst.withByteOffset(dstOffset), src, bytes);
    }

    @Override
    public void copyToHost(Pointer dst, CUdeviceptr src, long srcOffset, long bytes) {
        JCudaDriver.cuMemcpyDtoH(dst, src.withByteOffset(srcOffset), bytes);
    }

    @Override
    public void fill16(CUdeviceptr ptr, short value, long count) {
        JCudaDriver.cuMemsetD16(ptr, value, count);
    }

    @Override
    public void fill32(CUdeviceptr ptr, int value, long count) {
        JCudaDriver.cuMemsetD32(ptr, value, count);
    }

    @Override
    public CUevent eventCreate() {
        CUevent e = new CUevent();
        JCudaDriver.cuEventCreate(e, 0);
        return e;
    }

    @Override
    public void eventRecord(CUevent event) {
        JCudaDriver.cuEventRecord(event, null);
    }

    @Override
    public float eventElapsedMs(CUevent start, CUevent end) {
        JCudaDriver.cuEventSynchronize(end);
        float[] ms = new float[1];
        JCudaDriver.cuEventElapsedTime(ms, start, end);
        return ms[0];
    }

    @Override
    public void eventDestroy(CUevent event) {
        JCudaDriver.cuEventDestroy(event);
    }
}
