package saw.engine.attention;

import saw.engine.mask.TileLayout;

/**
 * Attention over part of a layout, as one device of a ring computes it. The forward of a part is
 * {@link #forward}; its backward needs the softmax statistics of the whole row (O and LSE merged over every part),
 * so it takes them instead of recomputing them from the part.
 */
public interface PartialAttention extends AttentionKernels {
    /**
     * dQ, dK and dV of the tiles of {@code layout} only, from the inputs' dO and the given whole-row O and LSE;
     * returns those O and LSE beside the gradients.
     */
    AttentionOutputs backward(AttentionInputs in, TileLayout layout, AttentionOutputs whole);
}
