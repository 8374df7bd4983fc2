package saw.engine.gpu;

import java.util.List;

/**
 * What {@link GpuBackend#detect()} found: whether the GPU backend can run, a sentence for people, and what is there.
 *
 * @param driverVersion CUDA driver version as "12.8", or "" when no driver was found
 * @param devices one line per GPU: "0: NVIDIA H200, compute capability 9.0, 139.8 GiB"
 * @param kernelsBuilt whether this build holds the CUDA kernels
 */
public record GpuStatus(boolean usable, String message, String driverVersion, List<String> devices, boolean kernelsBuilt) {
    public GpuStatus {
        devices = List.copyOf(devices);
    }
}
