package saw.engine.attention;

import saw.engine.mask.TileLayout;

/**
 * Attention on given host inputs, for verification: the same kernels a {@link AttentionBackend} times, with their
 * outputs brought back. The layout's tile size is the kernel's; its dims must match the problem's.
 */
public interface AttentionKernels extends AutoCloseable {
    /** "gpu", "cpu". */
    String name();

    /** O and LSE. */
    AttentionOutputs forward(AttentionInputs in, TileLayout layout);

    /** O and LSE, then dQ, dK and dV from the inputs' dO. */
    AttentionOutputs forwardBackward(AttentionInputs in, TileLayout layout);

    @Override
    void close();
}
