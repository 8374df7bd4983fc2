package saw.engine.gpu;

import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;

/** The driver-backed probe. */
final class JCudaProbe implements DeviceProbe {
    @Override
    public boolean kernelsBuilt() {
        return GpuBackend.class.getResource(CudaDevice.FATBIN) != null;
    }

    @Override
    public String initDriver() {
        try {
            JCudaNatives.initDriver();
            return null;
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            return linkProblem(String.valueOf(e.getMessage()));
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    /** JCuda's message lists every attempt with stack traces; keep the part a user can act on. */
    static String linkProblem(String message) {
        if (message.contains("libcuda.so")) {
            return "the NVIDIA driver library libcuda.so.1 was not found";
        }
        String first = message.lines().findFirst().orElse(message);
        return "JCuda's native library could not be loaded (" + first + ")";
    }

    @Override
    public int driverVersion() {
        int[] v = new int[1];
        JCudaDriver.cuDriverGetVersion(v);
        return v[0];
    }

    @Override
    public int deviceCount() {
        int[] n = new int[1];
        JCudaDriver.cuDeviceGetCount(n);
        return n[0];
    }

    @Override
    public Device device(int ordinal) {
        CUdevice dev = new CUdevice();
        JCudaDriver.cuDeviceGet(dev, ordinal);
        byte[] name = new byte[256];
        JCudaDriver.cuDeviceGetName(name, name.length, dev);
        int len = 0;
        while (len < name.length && name[len] != 0) {
            len++;
        }
        int[] major = new int[1];
        int[] minor = new int[1];
        JCudaDriver.cuDeviceGetAttribute(major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        JCudaDriver.cuDeviceGetAttribute(minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
        long[] mem = new long[1];
        JCudaDriver.cuDeviceTotalMem(mem, dev);
        return new Device(new String(name, 0, len, java.nio.charset.StandardCharsets.US_ASCII), major[0], minor[0], mem[0]);
    }
}
