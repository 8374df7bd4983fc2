package saw.engine.config;

import saw.engine.mask.Mask;

/** The key that names each kind of mask in a {@code saw.mask/1} config ("causal", "sliding_window", "and", ...). */
public final class MaskKeys {
    private MaskKeys() {}

    /** The config key of this mask's kind. */
    public static String key(Mask m) {
        if (m instanceof Mask.Full) {
            return "full";
        } else if (m instanceof Mask.Causal) {
            return "causal";
        } else if (m instanceof Mask.SlidingWindow) {
            return "sliding_window";
        } else if (m instanceof Mask.ChunkedCausal) {
            return "chunked_causal";
        } else if (m instanceof Mask.PrefixLm) {
            return "prefix_lm";
        } else if (m instanceof Mask.Documents) {
            return "documents";
        } else if (m instanceof Mask.GlobalTokens) {
            return "global_tokens";
        } else if (m instanceof Mask.Dilated) {
            return "dilated";
        } else if (m instanceof Mask.Sinks) {
            return "sinks";
        } else if (m instanceof Mask.RandomBlocks) {
            return "random_blocks";
        } else if (m instanceof Mask.BlockList) {
            return "block_list";
        } else if (m instanceof Mask.Painted) {
            return "painted";
        } else if (m instanceof Mask.And) {
            return "and";
        } else if (m instanceof Mask.Or) {
            return "or";
        } else if (m instanceof Mask.Not) {
            return "not";
        }
        return "per_head";
    }
}
