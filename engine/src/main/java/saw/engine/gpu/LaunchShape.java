package saw.engine.gpu;

/**
 * One kernel launch: which kernel, its grid and block (x only; y = z = 1) and dynamic shared memory. A
 * {@code persistent} kernel takes {@code grid} work items from a queue with at most one CTA per SM: the launch caps
 * its grid at the GPU's SM count and passes {@code grid} and the device's work queue as the kernel's last two
 * arguments (CudaDevice.launchOn).
 */
record LaunchShape(String kernel, long grid, int block, int sharedBytes, boolean persistent) {
    LaunchShape {
        if (grid < 1 || grid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(kernel + ": grid of " + grid + " blocks is outside 1.." + Integer.MAX_VALUE);
        }
    }

    LaunchShape(String kernel, long grid, int block, int sharedBytes) {
        this(kernel, grid, block, sharedBytes, false);
    }

    @Override
    public String toString() {
        return kernel + " <<<" + (persistent ? "items " : "grid ") + grid + ", block " + block + ", shared " + sharedBytes
                + " B>>>";
    }
}
