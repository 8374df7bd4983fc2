package saw.engine.bench;

import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

/**
 * What a compiled layout asks of a kernel, summed over every batch entry and head: tiles per class and attended
 * token pairs. Token density is attended pairs over all pairs; block density is visited (partial + full) tiles over
 * all tiles.
 */
public record TileStats(long empty, long partial, long full, long attendedPairs, double tokenDensity, double blockDensity) {
    public TileStats {
        if (empty < 0 || partial < 0 || full < 0 || attendedPairs < 0) {
            throw new IllegalArgumentException("tile and pair counts must be >= 0");
        }
    }

    public static TileStats of(TileLayout layout) {
        long empty = layout.count(TileClass.EMPTY);
        long partial = layout.count(TileClass.PARTIAL);
        long full = layout.count(TileClass.FULL);
        long pairs = layout.mask().attendedPairs();
        var d = layout.dims();
        double allPairs = (double) d.batch() * d.heads() * d.seqQ() * d.seqKv();
        double allTiles = empty + partial + full;
        return new TileStats(empty, partial, full, pairs, pairs / allPairs, (partial + full) / allTiles);
    }

    /** Tiles a kernel visits: the partial and the full ones. */
    public long visited() {
        return partial + full;
    }
}
