package saw.engine.tune;

import java.util.Arrays;
import java.util.Locale;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * What a mask looks like to a kernel, independent of the tile a candidate uses: the mask compiled at a fixed
 * {@value #GRAIN}x{@value #GRAIN} grain, its tile-class shares (percent, rounded) and the length of its q-block rows
 * in visited kv-blocks (min, mean, max as percents of the row). Two masks of one shape but different sparsity get
 * different signatures; a mask and the same mask on another seed of a random draw usually share one.
 */
public record MaskSignature(int emptyPct, int partialPct, int fullPct, int rowMinPct, int rowMeanPct, int rowMaxPct) {
    static final int GRAIN = 64;

    public MaskSignature {
        for (int x : new int[] {emptyPct, partialPct, fullPct, rowMinPct, rowMeanPct, rowMaxPct}) {
            if (x < 0 || x > 100) {
                throw new IllegalArgumentException("signature percentages must be in 0..100, got " + x);
            }
        }
    }

    public static MaskSignature of(BoundMask mask) {
        return of(mask.compile(GRAIN, GRAIN));
    }

    /** From a layout already compiled at {@value #GRAIN}x{@value #GRAIN}. */
    static MaskSignature of(TileLayout layout) {
        if (layout.blockQ() != GRAIN || layout.blockKv() != GRAIN) {
            throw new IllegalArgumentException("a signature needs a " + GRAIN + "x" + GRAIN + " layout, got "
                    + layout.blockQ() + "x" + layout.blockKv());
        }
        double total = layout.count(TileClass.EMPTY) + layout.count(TileClass.PARTIAL) + layout.count(TileClass.FULL);
        int nkv = layout.numKvBlocks();
        int rows = layout.variantCount() * layout.numQBlocks();
        int[] lengths = new int[rows];
        int r = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            TileGrid g = layout.grid(v);
            for (int qb = 0; qb < g.numQBlocks(); qb++) {
                int visited = 0;
                for (int run = 0; run < g.runCount(qb); run++) {
                    if (g.runClass(qb, run) != TileClass.EMPTY) {
                        visited += g.runEnd(qb, run) - g.runStart(qb, run);
                    }
                }
                lengths[r++] = visited;
            }
        }
        int min = Arrays.stream(lengths).min().orElse(0);
        int max = Arrays.stream(lengths).max().orElse(0);
        double mean = Arrays.stream(lengths).average().orElse(0);
        return new MaskSignature(pct(layout.count(TileClass.EMPTY) / total), pct(layout.count(TileClass.PARTIAL) / total),
                pct(layout.count(TileClass.FULL) / total), pct(min / (double) nkv), pct(mean / nkv), pct(max / (double) nkv));
    }

    private static int pct(double share) {
        return (int) Math.round(100 * share);
    }

    /** "e50p2f48-r1/50/100": empty, partial, full shares, then the row lengths. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "e%dp%df%d-r%d/%d/%d", emptyPct, partialPct, fullPct, rowMinPct, rowMeanPct,
                rowMaxPct);
    }
}
