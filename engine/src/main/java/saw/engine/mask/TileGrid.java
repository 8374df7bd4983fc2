package saw.engine.mask;

import java.util.Arrays;

/**
 * The tiles of one mask variant, stored per q-block row as runs of consecutive kv-blocks of one class.
 * Runs of a row cover [0, numKvBlocks) in order; neighbouring runs differ in class.
 */
public final class TileGrid {
    private final int numQBlocks;
    private final int numKvBlocks;
    private final int[] rowStart;
    private final int[] runStart;
    private final byte[] runClass;
    private final long[] classCounts;

    TileGrid(int numQBlocks, int numKvBlocks, int[] rowStart, int[] runStart, byte[] runClass) {
        this.numQBlocks = numQBlocks;
        this.numKvBlocks = numKvBlocks;
        this.rowStart = rowStart;
        this.runStart = runStart;
        this.runClass = runClass;
        this.classCounts = new long[3];
        for (int r = 0; r < numQBlocks; r++) {
            for (int k = rowStart[r]; k < rowStart[r + 1]; k++) {
                classCounts[runClass[k]] += runEndAt(r, k) - runStart[k];
            }
        }
    }

    public int numQBlocks() {
        return numQBlocks;
    }

    public int numKvBlocks() {
        return numKvBlocks;
    }

    /** Runs in q-block row {@code qBlock}. */
    public int runCount(int qBlock) {
        return rowStart[qBlock + 1] - rowStart[qBlock];
    }

    /** First kv-block of run {@code run} of row {@code qBlock}. */
    public int runStart(int qBlock, int run) {
        return runStart[rowStart[qBlock] + run];
    }

    /** One past the last kv-block of run {@code run} of row {@code qBlock}. */
    public int runEnd(int qBlock, int run) {
        return runEndAt(qBlock, rowStart[qBlock] + run);
    }

    public TileClass runClass(int qBlock, int run) {
        return TileClass.values()[runClass[rowStart[qBlock] + run]];
    }

    public TileClass classAt(int qBlock, int kvBlock) {
        int from = rowStart[qBlock];
        int to = rowStart[qBlock + 1];
        int x = Arrays.binarySearch(runStart, from, to, kvBlock);
        return TileClass.values()[runClass[x >= 0 ? x : -x - 2]];
    }

    /** Tiles of this class in the grid. */
    public long count(TileClass c) {
        return classCounts[c.ordinal()];
    }

    /** Total runs stored: the size of the compact layout. */
    public int totalRuns() {
        return runStart.length;
    }

    /** Tiles of class {@code c} in row {@code qBlock}, ascending. */
    public int[] kvBlocks(int qBlock, TileClass c) {
        int n = 0;
        for (int k = rowStart[qBlock]; k < rowStart[qBlock + 1]; k++) {
            if (runClass[k] == c.ordinal()) {
                n += runEndAt(qBlock, k) - runStart[k];
            }
        }
        int[] out = new int[n];
        int pos = 0;
        for (int k = rowStart[qBlock]; k < rowStart[qBlock + 1]; k++) {
            if (runClass[k] == c.ordinal()) {
                for (int kb = runStart[k], end = runEndAt(qBlock, k); kb < end; kb++) {
                    out[pos++] = kb;
                }
            }
        }
        return out;
    }

    private int runEndAt(int qBlock, int k) {
        return k + 1 < rowStart[qBlock + 1] ? runStart[k + 1] : numKvBlocks;
    }

    /** Collects the runs of rows in order, merging neighbours of one class. */
    static final class Builder {
        private final int numQBlocks;
        private final int numKvBlocks;
        private final int[] rowStart;
        private int[] starts = new int[64];
        private byte[] classes = new byte[64];
        private int size;
        private int row = -1;

        Builder(int numQBlocks, int numKvBlocks) {
            this.numQBlocks = numQBlocks;
            this.numKvBlocks = numKvBlocks;
            this.rowStart = new int[numQBlocks + 1];
        }

        void startRow(int r) {
            row = r;
            rowStart[r] = size;
        }

        void add(int kvFrom, int cls) {
            if (size > rowStart[row] && classes[size - 1] == cls) {
                return;
            }
            if (size == starts.length) {
                starts = Arrays.copyOf(starts, size * 2);
                classes = Arrays.copyOf(classes, size * 2);
            }
            starts[size] = kvFrom;
            classes[size++] = (byte) cls;
        }

        TileGrid build() {
            rowStart[numQBlocks] = size;
            return new TileGrid(numQBlocks, numKvBlocks, rowStart, Arrays.copyOf(starts, size), Arrays.copyOf(classes, size));
        }
    }
}
