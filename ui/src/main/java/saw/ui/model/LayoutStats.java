package saw.ui.model;

import saw.engine.mask.Dims;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * What the inspector shows about a compiled layout, summed over every batch entry and head: tiles per class, the
 * pairs that attend, and the pairs a block-sparse kernel computes (every pair of every non-empty tile, ragged last
 * tiles counted by their real size).
 */
public record LayoutStats(long emptyTiles, long partialTiles, long fullTiles, long attendedPairs, long visitedPairs,
                          long densePairs) {

    public static LayoutStats of(TileLayout layout) {
        Dims d = layout.dims();
        long[] mult = layout.mask().variantMultiplicity();
        long visited = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            visited += mult[v] * visitedPairs(layout, layout.grid(v));
        }
        long dense = (long) d.seqQ() * d.seqKv() * d.batch() * d.heads();
        return new LayoutStats(layout.count(TileClass.EMPTY), layout.count(TileClass.PARTIAL),
                layout.count(TileClass.FULL), layout.mask().attendedPairs(), visited, dense);
    }

    private static long visitedPairs(TileLayout layout, TileGrid grid) {
        long pairs = 0;
        for (int qb = 0; qb < grid.numQBlocks(); qb++) {
            long rows = layout.qEnd(qb) - layout.qStart(qb);
            for (int r = 0; r < grid.runCount(qb); r++) {
                if (grid.runClass(qb, r) != TileClass.EMPTY) {
                    int from = grid.runStart(qb, r);
                    int to = grid.runEnd(qb, r);
                    pairs += rows * (layout.kvEnd(to - 1) - layout.kvStart(from));
                }
            }
        }
        return pairs;
    }

    public long totalTiles() {
        return emptyTiles + partialTiles + fullTiles;
    }

    /** Attending pairs over all pairs. */
    public double tokenDensity() {
        return (double) attendedPairs / densePairs;
    }

    /** Non-empty tiles over all tiles. */
    public double blockDensity() {
        return (double) (partialTiles + fullTiles) / totalTiles();
    }

    /** Forward FLOPs (QK^T and PV, 4 per pair per head-dim element) of the pairs given. */
    public static double forwardFlops(long pairs, int headDim) {
        return 4.0 * headDim * pairs;
    }
}
