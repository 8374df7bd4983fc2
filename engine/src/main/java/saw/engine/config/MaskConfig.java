package saw.engine.config;

import java.util.List;
import java.util.Objects;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;

/**
 * A {@code saw.mask/1} config: a named mask with the sizes it is evaluated over and the tile size it compiles to.
 * The constructor checks what needs no mask; whether the mask fits the sizes (document lengths, block lists, ...)
 * is {@link #problems()}, which {@link ConfigReader} has already checked for configs it returns.
 */
public record MaskConfig(String name, String description, int seqLenQ, int seqLenKv, int batch, int heads,
                         BlockSize block, Mask mask) {
    /** The schema this saw reads and writes. */
    public static final String SCHEMA = "saw.mask/1";
    public static final int MAX_BATCH = 1024;
    public static final int MAX_HEADS = 1024;
    public static final int MAX_NAME_LENGTH = 200;
    public static final int MAX_DESCRIPTION_LENGTH = 4000;

    public MaskConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(block, "block");
        Objects.requireNonNull(mask, "mask");
        if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("name must be 1.." + MAX_NAME_LENGTH + " characters and not blank");
        }
        if (description.length() > MAX_DESCRIPTION_LENGTH) {
            throw new IllegalArgumentException("description is longer than " + MAX_DESCRIPTION_LENGTH + " characters");
        }
        if (batch > MAX_BATCH || heads > MAX_HEADS) {
            throw new IllegalArgumentException("batch and heads must be at most " + MAX_BATCH + " and " + MAX_HEADS
                    + ", got batch=" + batch + ", heads=" + heads);
        }
        new Dims(seqLenQ, seqLenKv, batch, heads);
    }

    public Dims dims() {
        return new Dims(seqLenQ, seqLenKv, batch, heads);
    }

    /** Whether the mask fits these sizes: every problem, named by its JSON pointer; empty when it does. */
    public List<MaskChecks.Problem> problems() {
        return MaskChecks.check(mask, dims());
    }

    /**
     * The same config at {@code seq} query and key tokens (what {@code --seq N} does). Nothing in the mask is
     * rescaled: document lengths, global token indices, block lists and the like stay as they are, so call
     * {@link #problems()} on the result.
     */
    public MaskConfig withSeq(int seq) {
        return new MaskConfig(name, description, seq, seq, batch, heads, block, mask);
    }

    public MaskConfig withBlock(BlockSize newBlock) {
        return new MaskConfig(name, description, seqLenQ, seqLenKv, batch, heads, newBlock, mask);
    }
}
