package saw.engine.nsa;

/**
 * The reverse index of a selection: for each (batch, kv head, kv-block), the tokens that chose the block, ascending.
 * Entry {@code i = (b * kvHeads + h) * numKvBlocks + kb} owns {@code tokens()[ptr()[i] .. ptr()[i + 1])}.
 */
public final class ChosenBy {
    private final int[] ptr;
    private final int[] tokens;

    private ChosenBy(int[] ptr, int[] tokens) {
        this.ptr = ptr;
        this.tokens = tokens;
    }

    public static ChosenBy of(NsaSelection sel) {
        int nb = sel.numKvBlocks();
        int planes = sel.batch() * sel.kvHeads();
        if ((long) planes * nb + 1 > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("too many (batch, kv head, kv-block) entries for a reverse index: " + (long) planes * nb);
        }
        int[] ptr = new int[planes * nb + 1];
        int[] buf = new int[sel.maxSelected()];
        for (int b = 0; b < sel.batch(); b++) {
            for (int t = 0; t < sel.seqLen(); t++) {
                for (int h = 0; h < sel.kvHeads(); h++) {
                    int n = sel.blocks(b, t, h, buf);
                    int base = (b * sel.kvHeads() + h) * nb;
                    for (int s = 0; s < n; s++) {
                        ptr[base + buf[s] + 1]++;
                    }
                }
            }
        }
        for (int i = 0; i < planes * nb; i++) {
            ptr[i + 1] += ptr[i];
        }
        int[] fill = java.util.Arrays.copyOf(ptr, planes * nb);
        int[] tokens = new int[ptr[planes * nb]];
        for (int b = 0; b < sel.batch(); b++) {
            for (int t = 0; t < sel.seqLen(); t++) { // ascending t, so each list is ascending
                for (int h = 0; h < sel.kvHeads(); h++) {
                    int n = sel.blocks(b, t, h, buf);
                    int base = (b * sel.kvHeads() + h) * nb;
                    for (int s = 0; s < n; s++) {
                        tokens[fill[base + buf[s]]++] = t;
                    }
                }
            }
        }
        return new ChosenBy(ptr, tokens);
    }

    /** A copy of the pointers, length planes * numKvBlocks + 1. */
    public int[] ptr() {
        return ptr.clone();
    }

    /** A copy of the token lists. */
    public int[] tokens() {
        return tokens.clone();
    }

    int start(int entry) {
        return ptr[entry];
    }

    int end(int entry) {
        return ptr[entry + 1];
    }

    int token(int at) {
        return tokens[at];
    }
}
