package saw.ui.model;

import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;

/**
 * The window edits a {@link MaskConfig}: immutable with value equality, so the undo stack holds snapshots and
 * "unsaved changes" is a comparison with the saved value. Its mask may have problems for its sizes; the window shows
 * them at the fields and keeps showing the last config that had none. These are the edits the window makes.
 */
public final class Configs {
    private Configs() {}

    /** What a new window shows: causal attention over 4096 tokens in 128 x 128 tiles. */
    public static MaskConfig starter() {
        return new MaskConfig("untitled", "", 4096, 4096, 1, 1, new BlockSize(128, 128), new Mask.Causal(0));
    }

    public static MaskConfig withMask(MaskConfig c, Mask m) {
        return new MaskConfig(c.name(), c.description(), c.seqLenQ(), c.seqLenKv(), c.batch(), c.heads(), c.block(), m);
    }

    public static MaskConfig withDims(MaskConfig c, Dims d) {
        return new MaskConfig(c.name(), c.description(), d.seqQ(), d.seqKv(), d.batch(), d.heads(), c.block(), c.mask());
    }

    public static MaskConfig withName(MaskConfig c, String name) {
        return new MaskConfig(name, c.description(), c.seqLenQ(), c.seqLenKv(), c.batch(), c.heads(), c.block(), c.mask());
    }
}
