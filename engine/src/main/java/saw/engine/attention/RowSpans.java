package saw.engine.attention;

/**
 * Bit tiles as row spans: every mask the presets build from causal, windows, documents, chunks and prefixes lets each
 * query row of a tile attend one run of consecutive keys, which two bytes describe (its first key and how many). The
 * persistent Hopper forward masks PARTIAL tiles by these when a layout's tiles all have them, so that it reads one
 * 32-bit word a thread per tile from shared memory instead of two bit rows from global memory (docs/kernel-notes.md,
 * "Row spans").
 *
 * <p>Layout per tile: {@code blockQ / 2} words; word {@code 8 (r / 16) + r % 16} (for {@code r % 16 < 8}) holds row
 * {@code r} in its low half and row {@code r + 8} in its high half (the two rows one thread of a warpgroup MMA holds),
 * each half as first key (low byte) and key count (high byte); a row that attends nothing is (0, 0).
 */
final class RowSpans {
    private RowSpans() {}

    /** Widest tile whose key count fits a byte. */
    static final int MAX_BLOCK_KV = 255;

    /**
     * The spans of {@code count} bit tiles laid out as {@link TileLists#bits()} (blockQ rows of blockKv / 32 words), or
     * null when a row of some tile is not one run of keys, or the tiles are not 16-row blocks or wider than
     * {@value #MAX_BLOCK_KV} keys.
     */
    static int[] of(int[] bits, int count, int blockQ, int blockKv) {
        if (blockQ % 16 != 0 || blockKv > MAX_BLOCK_KV) {
            return null;
        }
        int wordsPerRow = blockKv / 32;
        int[] spans = new int[count * blockQ / 2];
        for (int m = 0; m < count; m++) {
            for (int r = 0; r < blockQ; r++) {
                int span = span(bits, (m * blockQ + r) * wordsPerRow, blockKv);
                if (span < 0) {
                    return null;
                }
                int word = m * blockQ / 2 + (r / 16) * 8 + r % 8;
                spans[word] |= span << (r % 16 < 8 ? 0 : 16);
            }
        }
        return spans;
    }

    /** (first | keys << 8) of the bit row at {@code at}, or -1 when its set bits are not one run. */
    private static int span(int[] bits, int at, int blockKv) {
        int first = -1;
        int end = -1;
        for (int j = 0; j < blockKv; j++) {
            if ((bits[at + (j >>> 5)] >>> (j & 31) & 1) == 0) {
                continue;
            }
            if (first < 0) {
                first = j;
            } else if (end != j) {
                return -1;
            }
            end = j + 1;
        }
        return first < 0 ? 0 : first | (end - first) << 8;
    }
}
