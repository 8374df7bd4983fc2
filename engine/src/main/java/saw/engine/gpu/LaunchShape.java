package saw.engine.gpu;

/** One kernel launch: which kernel, its grid and block (x only; y = z = 1) and dynamic shared memory. */
record LaunchShape(String kernel, long grid, int block, int sharedBytes) {
    LaunchShape {
        if (grid < 1 || grid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(kernel + ": grid of " + grid + " blocks is outside 1.." + Integer.MAX_VALUE);
        }
    }

    @Override
    public String toString() {
        return kernel + " <<<grid " + grid + ", block " + block + ", shared " + sharedBytes + " B>>>";
    }
}
