package saw.ui.model;

import java.util.Objects;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;

/**
 * What the workbench edits: a mask, the sizes it is bound to and the tile size it is compiled with. Immutable, with
 * value equality, so an undo stack can hold snapshots and "unsaved changes" is a comparison with the saved value.
 * The mask may still have problems that {@link MaskChecks} reports for these sizes; the window shows them at the
 * fields and keeps showing the last composition that had none.
 */
public record Composition(String name, String description, Dims dims, int blockQ, int blockKv, Mask mask) {
    public Composition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(mask, "mask");
        if (!MaskChecks.isValidBlock(blockQ) || !MaskChecks.isValidBlock(blockKv)) {
            throw new IllegalArgumentException("tile size " + blockQ + "x" + blockKv + " is not made of powers of two in 16..512");
        }
    }

    /** What a new window shows: causal attention over 4096 tokens in 128 x 128 tiles. */
    public static Composition starter() {
        return new Composition("untitled", "", new Dims(4096, 4096, 1, 1), 128, 128, new Mask.Causal(0));
    }

    public Composition withMask(Mask m) {
        return new Composition(name, description, dims, blockQ, blockKv, m);
    }

    public Composition withDims(Dims d) {
        return new Composition(name, description, d, blockQ, blockKv, mask);
    }

    public Composition withBlocks(int q, int kv) {
        return new Composition(name, description, dims, q, kv, mask);
    }

    public Composition withName(String n, String d) {
        return new Composition(n, d, dims, blockQ, blockKv, mask);
    }

    public java.util.List<MaskChecks.Problem> problems() {
        return MaskChecks.check(mask, dims);
    }
}
