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

    /**
     * Whether {@link #prepare(AttentionProblem, TileLayout, Pass, long, boolean)} can time learned sink logits
     * (softmax_aux, one per head); a backend that cannot refuses such runs.
     */
    default boolean timesSinks() {
        return false;
    }

    /**
     * Prepares one pass as {@link #prepare(AttentionProblem, TileLayout, Pass, long)} does, with {@code sinks} also
     * learned sink logits: random fp32 values, one per head, drawn from {@code seed} ({@link AttentionInputs#randomSinks}),
     * added to every row's softmax denominator after the forward, and dSink after the backward.
     *
     * @throws IllegalArgumentException with sinks on a backend that does not time them (see {@link #timesSinks()}),
     *     or when this backend cannot run the problem
     */
    default PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed, boolean sinks) {
        if (sinks && !timesSinks()) {
            throw new IllegalArgumentException(sinksRefusal(name()));
        }
        return prepare(problem, layout, pass, seed);
    }

    /** The sentence a backend that does not time sink logits refuses them with; it names the setting ({@code --sinks}). */
    static String sinksRefusal(String backend) {
        return "--sinks: the " + backend + " backend does not time learned sink logits; run on the gpu or cpu backend, or turn them off";
    }

    @Override
    void close();

    /**
     * A backend that times learned sink logits: its {@link #prepare(AttentionProblem, TileLayout, Pass, long, boolean)}
     * is its own, and the plain {@link #prepare(AttentionProblem, TileLayout, Pass, long)} is that without sinks.
     */
    interface SinkTiming extends AttentionBackend {
        @Override
        default PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed) {
            return prepare(problem, layout, pass, seed, false);
        }

        @Override
        default boolean timesSinks() {
            return true;
        }

        @Override
        PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed, boolean sinks);
    }

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
