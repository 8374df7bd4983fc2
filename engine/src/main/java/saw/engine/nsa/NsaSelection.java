package saw.engine.nsa;

import java.util.Arrays;

/**
 * Native Sparse Attention's selection for one self-attention call of {@code seqLen} tokens: for every batch entry b,
 * token t and kv head h, the kv-blocks of {@code blockSize} keys that the token's query heads (the GQA group of h)
 * attend, {@code indices} [batch, seqLen, kvHeads, maxSelected] with {@code counts} [batch, seqLen, kvHeads] real
 * entries each (the rest -1). Within a chosen block the token attends the keys up to itself (causal). Chosen
 * entries are distinct block numbers in [0, numKvBlocks); -1 inside the count means "nothing" as in fla. Immutable.
 */
public final class NsaSelection {
    private final int batch;
    private final int seqLen;
    private final int kvHeads;
    private final int maxSelected;
    private final int blockSize;
    private final int[] indices;
    private final int[] counts;

    private NsaSelection(int batch, int seqLen, int kvHeads, int maxSelected, int blockSize, int[] indices, int[] counts) {
        this.batch = batch;
        this.seqLen = seqLen;
        this.kvHeads = kvHeads;
        this.maxSelected = maxSelected;
        this.blockSize = blockSize;
        this.indices = indices;
        this.counts = counts;
    }

    /**
     * A validated selection from copies of the arrays.
     *
     * @param causal whether a chosen block that starts after its token is an error (else it only contributes nothing)
     * @throws BadSelection naming the first offending position
     */
    public static NsaSelection of(int batch, int seqLen, int kvHeads, int maxSelected, int blockSize, int[] indices,
                                  int[] counts, boolean causal) throws BadSelection {
        if (batch < 1 || seqLen < 1 || kvHeads < 1 || maxSelected < 1) {
            throw new BadSelection("block_indices: every dimension must be >= 1, got [" + batch + ", " + seqLen + ", "
                    + kvHeads + ", " + maxSelected + "]");
        }
        if (blockSize < 1) {
            throw new BadSelection("block size must be >= 1, got " + blockSize);
        }
        long n = (long) batch * seqLen * kvHeads;
        if (n * maxSelected > Integer.MAX_VALUE - 16) {
            throw new BadSelection("block_indices: " + n * maxSelected + " entries is too many for one selection");
        }
        if (indices.length != n * maxSelected) {
            throw new BadSelection("block_indices has " + indices.length + " entries, [" + batch + ", " + seqLen + ", "
                    + kvHeads + ", " + maxSelected + "] needs " + n * maxSelected);
        }
        if (counts.length != n) {
            throw new BadSelection("block_counts has " + counts.length + " entries, [" + batch + ", " + seqLen + ", " + kvHeads
                    + "] needs " + n);
        }
        int blocks = (seqLen + blockSize - 1) / blockSize;
        int[] idx = indices.clone();
        int[] cnt = counts.clone();
        boolean[] seen = new boolean[blocks];
        for (int row = 0; row < n; row++) {
            int b = row / (seqLen * kvHeads);
            int t = row / kvHeads % seqLen;
            int h = row % kvHeads;
            int c = cnt[row];
            if (c < 0 || c > maxSelected) {
                throw new BadSelection("block_counts[" + b + ", " + t + ", " + h + "] = " + c + " is outside 0.." + maxSelected);
            }
            for (int s = 0; s < maxSelected; s++) {
                int v = idx[row * maxSelected + s];
                String at = "block_indices[" + b + ", " + t + ", " + h + ", " + s + "] = " + v;
                if (v < -1 || v >= blocks) {
                    throw new BadSelection(at + " is outside -1.." + (blocks - 1) + " (" + blocks + " kv-blocks of " + blockSize
                            + " tokens)");
                }
                if (s >= c || v < 0) {
                    continue;
                }
                if (seen[v]) {
                    throw new BadSelection(at + " repeats a block the token chose already");
                }
                if (causal && (long) v * blockSize > t) {
                    throw new BadSelection(at + " starts after token " + t + " (causal selection asked for)");
                }
                seen[v] = true;
            }
            for (int s = 0; s < c; s++) {
                int v = idx[row * maxSelected + s];
                if (v >= 0) {
                    seen[v] = false;
                }
            }
        }
        return new NsaSelection(batch, seqLen, kvHeads, maxSelected, blockSize, idx, cnt);
    }

    /** From per-row block lists {@code lists[(b * seqLen + t) * kvHeads + h]}, padded with -1 to the longest (at least 1). */
    static NsaSelection ofLists(int batch, int seqLen, int kvHeads, int blockSize, int[][] lists, boolean causal)
            throws BadSelection {
        int width = 1;
        for (int[] l : lists) {
            width = Math.max(width, l.length);
        }
        int[] idx = new int[lists.length * width];
        int[] cnt = new int[lists.length];
        Arrays.fill(idx, -1);
        for (int r = 0; r < lists.length; r++) {
            System.arraycopy(lists[r], 0, idx, r * width, lists[r].length);
            cnt[r] = lists[r].length;
        }
        return of(batch, seqLen, kvHeads, width, blockSize, idx, cnt, causal);
    }

    public int batch() {
        return batch;
    }

    public int seqLen() {
        return seqLen;
    }

    public int kvHeads() {
        return kvHeads;
    }

    /** S, the width of block_indices. */
    public int maxSelected() {
        return maxSelected;
    }

    public int blockSize() {
        return blockSize;
    }

    public int numKvBlocks() {
        return (seqLen + blockSize - 1) / blockSize;
    }

    /** block_indices, a copy. */
    public int[] indices() {
        return indices.clone();
    }

    /** block_counts, a copy. */
    public int[] counts() {
        return counts.clone();
    }

    /** How many entries of (b, t, h)'s list are real (some may be -1). */
    public int count(int b, int t, int h) {
        return counts[row(b, t, h)];
    }

    /** Entry s of (b, t, h)'s list; -1 or past {@link #count} means none. */
    public int block(int b, int t, int h, int s) {
        return indices[row(b, t, h) * maxSelected + s];
    }

    /** The chosen blocks of (b, t, h) into {@code out} (at least maxSelected long), in list order; returns how many. */
    public int blocks(int b, int t, int h, int[] out) {
        int row = row(b, t, h);
        int n = 0;
        for (int s = 0; s < counts[row]; s++) {
            int v = indices[row * maxSelected + s];
            if (v >= 0) {
                out[n++] = v;
            }
        }
        return n;
    }

    /** Keys token t attends in block kb: those of the block up to t itself. */
    public int keysInBlock(int t, int kb) {
        int start = kb * blockSize;
        int end = Math.min(seqLen, start + blockSize);
        return Math.max(0, Math.min(end, t + 1) - start);
    }

    /** Token-key pairs attended, summed over batch, tokens and kv heads (one query head of each group). */
    public long selectedPairs() {
        long pairs = 0;
        int[] buf = new int[maxSelected];
        for (int b = 0; b < batch; b++) {
            for (int t = 0; t < seqLen; t++) {
                for (int h = 0; h < kvHeads; h++) {
                    int n = blocks(b, t, h, buf);
                    for (int s = 0; s < n; s++) {
                        pairs += keysInBlock(t, buf[s]);
                    }
                }
            }
        }
        return pairs;
    }

    private int row(int b, int t, int h) {
        return (b * seqLen + t) * kvHeads + h;
    }
}
