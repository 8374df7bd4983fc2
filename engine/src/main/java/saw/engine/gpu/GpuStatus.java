package saw.engine.gpu;

import java.util.List;

/**
 * What {@link GpuBackend#detect()} found: whether the GPU backend can run, a sentence for people, and what is there.
 *
 * @param driverVersion CUDA driver version as "12.8", or "" when no driver was found
 * @param devices one line per GPU: "0: NVIDIA H200, compute capability 9.0, 139.8 GiB"
 * @param kernelsBuilt whether this build holds the CUDA kernels
 * @param memoryBytes the memory of GPU 0 (the one the backend opens), 0 when no GPU was found
 */
public record GpuStatus(boolean usable, String message, String driverVersion, List<String> devices, boolean kernelsBuilt,
        long memoryBytes) {
    public GpuStatus {
        devices = List.copyOf(devices);
    }
}
