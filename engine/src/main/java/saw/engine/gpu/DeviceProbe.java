package saw.engine.gpu;

/** The raw facts {@link GpuBackend#detect()} decides from; a fake stands in for the driver in tests. */
interface DeviceProbe {
    /** Whether the fatbin resource is on the class path. */
    boolean kernelsBuilt();

    /** Loads the driver and initialises it; null on success, else what went wrong. */
    String initDriver();

    /** Driver version as an int, 12080 for 12.8. */
    int driverVersion();

    int deviceCount();

    Device device(int ordinal);

    /** One GPU. */
    record Device(String name, int major, int minor, long memoryBytes) {}
}
