package saw.engine.config;

import java.util.Locale;
import saw.engine.mask.MaskChecks;

/** The tile size a config compiles to: {@code q} query rows by {@code kv} key columns, powers of two in 16..512. */
public record BlockSize(int q, int kv) {
    public BlockSize {
        if (!MaskChecks.isValidBlock(q) || !MaskChecks.isValidBlock(kv)) {
            throw new IllegalArgumentException("block sizes must be powers of two in 16..512, got " + q + "x" + kv);
        }
    }

    /**
     * Parses "QxKV", e.g. "128x64".
     *
     * @throws IllegalArgumentException naming the text and what is expected
     */
    public static BlockSize parse(String text) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split("x", -1);
        if (parts.length == 2) {
            try {
                int q = Integer.parseInt(parts[0].trim());
                int kv = Integer.parseInt(parts[1].trim());
                if (MaskChecks.isValidBlock(q) && MaskChecks.isValidBlock(kv)) {
                    return new BlockSize(q, kv);
                }
                throw new IllegalArgumentException("block '" + text + "': sizes must be powers of two in 16..512");
            } catch (NumberFormatException e) {
                // falls through to the format message
            }
        }
        throw new IllegalArgumentException("block '" + text + "' is not of the form QxKV, e.g. 128x64");
    }

    @Override
    public String toString() {
        return q + "x" + kv;
    }
}
