package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import jcuda.CudaException;
import org.junit.jupiter.api.Test;

class GpuDetectionTest {
    /** A driver that answers from fields. */
    private static final class FakeProbe implements DeviceProbe {
        boolean built = true;
        String driverProblem;
        List<Device> devices = List.of(new Device("NVIDIA H200", 9, 0, 150_000_000_000L));

        @Override
        public boolean kernelsBuilt() {
            return built;
        }

        @Override
        public String initDriver() {
            return driverProblem;
        }

        @Override
        public int driverVersion() {
            return 13000;
        }

        @Override
        public int deviceCount() {
            return devices.size();
        }

        @Override
        public Device device(int ordinal) {
            return devices.get(ordinal);
        }
    }

    @Test
    void noDriverSaysSoAndPointsToTheCpuBackend() {
        FakeProbe probe = new FakeProbe();
        probe.driverProblem = "the NVIDIA driver library libcuda.so.1 was not found";
        GpuStatus s = GpuBackend.detect(probe);
        assertFalse(s.usable());
        assertEquals("No usable CUDA driver: the NVIDIA driver library libcuda.so.1 was not found. The GPU backend needs an "
                + "NVIDIA GPU and its driver; use --backend cpu on this machine.", s.message());
        assertEquals("", s.driverVersion());
    }

    @Test
    void aDriverWithoutDevicesSaysItSeesNoGpu() {
        FakeProbe probe = new FakeProbe();
        probe.devices = List.of();
        GpuStatus s = GpuBackend.detect(probe);
        assertFalse(s.usable());
        assertEquals("The CUDA driver 13.0 is installed but sees no GPU; use --backend cpu on this machine.", s.message());
    }

    @Test
    void anOldGpuNamesItsComputeCapability() {
        FakeProbe probe = new FakeProbe();
        probe.devices = List.of(new DeviceProbe.Device("Tesla T4", 7, 5, 16L << 30));
        GpuStatus s = GpuBackend.detect(probe);
        assertFalse(s.usable());
        assertEquals("GPU 0 (Tesla T4) has compute capability 7.5; saw's kernels need 8.0 or newer (Ampere, Hopper or later).",
                s.message());
        assertEquals(List.of("0: Tesla T4, compute capability 7.5, 16.0 GiB"), s.devices());
    }

    @Test
    void aBuildWithoutKernelsSaysNvccWasMissing() {
        FakeProbe probe = new FakeProbe();
        probe.built = false;
        GpuStatus s = GpuBackend.detect(probe);
        assertFalse(s.usable());
        assertTrue(s.message().startsWith("This build of saw has no CUDA kernels: nvcc was not found"), s.message());
    }

    @Test
    void aGoodGpuIsReady() {
        GpuStatus s = GpuBackend.detect(new FakeProbe());
        assertTrue(s.usable());
        assertEquals("GPU 0 (NVIDIA H200, compute capability 9.0) is ready, CUDA driver 13.0.", s.message());
        assertEquals("13.0", s.driverVersion());
        assertEquals(new FakeProbe().devices.get(0).memoryBytes(), s.memoryBytes(), "GPU 0's memory, for estimates");
        FakeProbe none = new FakeProbe();
        none.devices = List.of();
        assertEquals(0, GpuBackend.detect(none).memoryBytes());
    }

    @Test
    void driverErrorsNameWhatWasRunning() {
        LaunchShape shape = new LaunchShape("fwd_bf16_d128_q128_kv64", 4096, 128, 98304);
        GpuException e = assertThrows(GpuException.class,
                () -> CudaErrors.check("launching " + shape, () -> {
                    throw new CudaException("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
                }));
        assertEquals("launching fwd_bf16_d128_q128_kv64 <<<grid 4096, block 128, shared 98304 B>>> failed: "
                + "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", e.getMessage());
    }

    @Test
    void jcudasLinkErrorsAreCutToTheActionablePart() {
        assertEquals("the NVIDIA driver library libcuda.so.1 was not found",
                JCudaProbe.linkProblem("Error while loading\n ... libcuda.so.1: cannot open shared object file"));
        assertEquals("JCuda's native library could not be loaded (no JCudaDriver in java.library.path)",
                JCudaProbe.linkProblem("no JCudaDriver in java.library.path\nstack..."));
    }
}
