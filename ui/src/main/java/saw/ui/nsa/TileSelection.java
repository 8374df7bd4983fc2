package saw.ui.nsa;

import java.util.Arrays;
import saw.engine.nsa.NsaSelection;

/**
 * One q-tile of an NSA selection as the view draws it: tokens [firstToken, endToken) as rows, the distinct kv-blocks
 * any of them chose as columns (ascending), which token chose which, and how many tokens share each column.
 */
public record TileSelection(int firstToken, int endToken, int[] blocks, boolean[][] chose, int[] sharedBy) {
    public TileSelection {
        blocks = blocks.clone();
        sharedBy = sharedBy.clone();
        boolean[][] copy = new boolean[chose.length][];
        for (int i = 0; i < chose.length; i++) {
            copy[i] = chose[i].clone();
        }
        chose = copy;
    }

    /** Tokens [t0, t1) of batch entry b and kv head h. */
    public static TileSelection of(NsaSelection sel, int b, int h, int t0, int t1) {
        int[] buf = new int[sel.maxSelected()];
        int[] stamp = new int[sel.numKvBlocks()];
        int n = 0;
        int[] found = new int[Math.min(sel.numKvBlocks(), (t1 - t0) * sel.maxSelected())];
        for (int t = t0; t < t1; t++) {
            int c = sel.blocks(b, t, h, buf);
            for (int s = 0; s < c; s++) {
                if (stamp[buf[s]]++ == 0) {
                    found[n++] = buf[s];
                }
            }
        }
        int[] blocks = Arrays.copyOf(found, n);
        Arrays.sort(blocks);
        int[] col = new int[sel.numKvBlocks()];
        int[] shared = new int[n];
        for (int i = 0; i < n; i++) {
            col[blocks[i]] = i;
            shared[i] = stamp[blocks[i]];
        }
        boolean[][] chose = new boolean[t1 - t0][n];
        for (int t = t0; t < t1; t++) {
            int c = sel.blocks(b, t, h, buf);
            for (int s = 0; s < c; s++) {
                chose[t - t0][col[buf[s]]] = true;
            }
        }
        return new TileSelection(t0, t1, blocks, chose, shared);
    }

    /** Choices in the tile over distinct blocks: how many tokens share a block on average (1 = none shared). */
    public double sharing() {
        long choices = 0;
        for (int s : sharedBy) {
            choices += s;
        }
        return blocks.length == 0 ? 0 : (double) choices / blocks.length;
    }

    @Override
    public int[] blocks() {
        return blocks.clone();
    }

    @Override
    public int[] sharedBy() {
        return sharedBy.clone();
    }

    /** Whether token firstToken + row chose column col. */
    public boolean chose(int row, int col) {
        return chose[row][col];
    }

    @Override
    public boolean[][] chose() {
        boolean[][] copy = new boolean[chose.length][];
        for (int i = 0; i < chose.length; i++) {
            copy[i] = chose[i].clone();
        }
        return copy;
    }
}
