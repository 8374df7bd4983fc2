package saw.engine.attention;

import saw.engine.mask.TileLayout;

/**
 * Something that runs block-sparse attention: the CPU reference, the multithreaded CPU kernel, or the CUDA kernels.
 * A backend prepares a run once (inputs drawn at random from a seed, layout uploaded) and then times it as often
 * as asked; charts and {@code saw bench} only use this interface.
 */
public interface AttentionBackend extends AutoCloseable {
    /** A short name for results files: "gpu", "cpu", "cpu-reference". */
    String name();

    /** What it runs on, for people: "NVIDIA H200 (sm_90, 139 GiB)", "CPU, 2 threads". */
    String device();

    /**
     * Prepares one pass on fresh random inputs drawn from {@code seed}; the layout's tile size is the kernel's.
     *
     * @throws IllegalArgumentException when this backend cannot run the problem (the message says why)
     */
    PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed);

    @Override
    void close();

    /** A prepared pass, ready to run repeatedly. */
    interface PreparedRun extends AutoCloseable {
        /** The kernel or implementation that runs, e.g. "fwd_bf16_d128_q128_kv64". */
        String kernelName();

        /** Runs the pass once and returns its time in milliseconds, taken with device events where there are. */
        double runTimedMs();

        @Override
        void close();
    }
}
