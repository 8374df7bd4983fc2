package saw.engine.mask;

/**
 * The deterministic generator behind {@link Mask.RandomBlocks}, specified so that any language can reproduce it
 * (docs/formats.md repeats this in prose). All arithmetic is on unsigned 64-bit integers, wrapping.
 * <pre>
 *   mix(z):  z = (z XOR (z >> 30)) * 0xBF58476D1CE4E5B9
 *            z = (z XOR (z >> 27)) * 0x94D049BB133111EB
 *            return z XOR (z >> 31)                      (SplitMix64's output function)
 *   state = mix(seed XOR mix(row + 1))                   (each row starts far from every other row)
 *   next():  state += 0x9E3779B97F4A7C15; return mix(state)
 *   row r draws min(per_row, nkv) distinct kv-blocks: repeat v = next() mod nkv, keep v if not yet drawn;
 *   the row is the drawn set, ascending. When per_row >= nkv the row is every kv-block.
 * </pre>
 */
public final class RandomBlockDraw {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private RandomBlockDraw() {}

    /** The sorted kv-block indices that q-block {@code row} attends. */
    public static int[] row(long seed, int row, int perRow, int numKvBlocks) {
        int target = Math.min(perRow, numKvBlocks);
        if (target == numKvBlocks) {
            int[] all = new int[numKvBlocks];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
            }
            return all;
        }
        long state = mix(seed ^ mix(row + 1L));
        java.util.BitSet drawn = new java.util.BitSet(numKvBlocks);
        int count = 0;
        while (count < target) {
            state += GOLDEN;
            int v = (int) Long.remainderUnsigned(mix(state), numKvBlocks);
            if (!drawn.get(v)) {
                drawn.set(v);
                count++;
            }
        }
        return drawn.stream().toArray();
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
