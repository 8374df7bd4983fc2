package saw.engine.format;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.function.Function;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * ejKernel's block-sparse {@code SparseMask}: per q-block a half-open interval [lower, upper) of kv-blocks to
 * compute and, inside it, an interval [lower_full, upper_full) of FULL tiles that need no mask arithmetic; and the
 * same per kv-block over q-blocks for the dK/dV pass. The arrays are [batch][1][blocks]: ejKernel shares one
 * interval across heads, so where heads differ a tile counts as EMPTY only if it is EMPTY for every head and as
 * FULL only if it is FULL for every head.
 *
 * <p>The intervals of a line (a q-block row, or a kv-block column for dK/dV): [lower, upper) spans the first to
 * the last non-EMPTY tile; [lower_full, upper_full) is the longest run of consecutive FULL tiles (the first one
 * when several are equally long). A line with no non-EMPTY tile has all four bounds 0; a line with no FULL tile
 * has lower_full = upper_full = lower (ejKernel's own convention).
 *
 * <p>{@code extra_tiles} counts EMPTY tiles inside [lower, upper) (computed needlessly), {@code masked_full_tiles}
 * FULL tiles outside [lower_full, upper_full) (computed with mask arithmetic they do not need), both summed over
 * batch entries and heads, with {@code dkdv_} counterparts; {@code exact} is true when all four are 0, that is
 * when the intervals reproduce every head's tile classes.
 */
final class EjKernelFormat implements LayoutFormat {
    private static final byte EMPTY = (byte) TileClass.EMPTY.ordinal();
    private static final byte PARTIAL = (byte) TileClass.PARTIAL.ordinal();
    private static final byte FULL = (byte) TileClass.FULL.ordinal();

    @Override
    public String name() {
        return "ejkernel";
    }

    @Override
    public String description() {
        return "ejKernel block-sparse SparseMask: kv-block intervals per q-block and q-block intervals per kv-block (dkdv)";
    }

    @Override
    public long estimateBytes(TileLayout layout) {
        int batch = layout.dims().batch();
        int w = FormatJson.width(0, Math.max(layout.numQBlocks(), layout.numKvBlocks()));
        return FormatJson.HEADER_BYTES + 4 * FormatJson.arrayBytes(w, batch, 1, layout.numQBlocks())
                + 4 * FormatJson.arrayBytes(w, batch, 1, layout.numKvBlocks());
    }

    @Override
    public void write(TileLayout layout, OutputStream out) throws IOException {
        FormatJson.checkSize(this, layout);
        int batch = layout.dims().batch();
        Cover[] covers = new Cover[batch];
        for (int b = 0; b < batch; b++) {
            covers[b] = b >= layout.mask().batchPeriod() ? covers[b % layout.mask().batchPeriod()] : Cover.of(layout, b);
        }
        long extra = 0;
        long dkdvExtra = 0;
        long maskedFull = 0;
        long dkdvMaskedFull = 0;
        for (Cover c : covers) {
            extra += c.fwd.extraTiles;
            dkdvExtra += c.dkdv.extraTiles;
            maskedFull += c.fwd.maskedFullTiles;
            dkdvMaskedFull += c.dkdv.maskedFullTiles;
        }
        JsonGenerator g = FormatJson.begin(out, "saw.ejkernel/1", layout);
        writeBounds(g, "", covers, c -> c.fwd);
        writeBounds(g, "dkdv_", covers, c -> c.dkdv);
        g.writeBooleanField("exact", extra + dkdvExtra + maskedFull + dkdvMaskedFull == 0);
        g.writeNumberField("extra_tiles", extra);
        g.writeNumberField("dkdv_extra_tiles", dkdvExtra);
        g.writeNumberField("masked_full_tiles", maskedFull);
        g.writeNumberField("dkdv_masked_full_tiles", dkdvMaskedFull);
        FormatJson.end(g);
    }

    private static void writeBounds(JsonGenerator g, String prefix, Cover[] covers, Function<Cover, Intervals> direction)
            throws IOException {
        String[] names = {"lower_bounds", "upper_bounds", "lower_full_bounds", "upper_full_bounds"};
        for (int k = 0; k < names.length; k++) {
            g.writeFieldName(prefix + names[k]);
            g.writeStartArray();
            for (Cover c : covers) {
                int[] bounds = direction.apply(c).bounds(k);
                g.writeStartArray();
                g.writeArray(bounds, 0, bounds.length);
                g.writeEndArray();
            }
            g.writeEndArray();
        }
    }

    /** Both directions' intervals for one batch entry. */
    private static final class Cover {
        final Intervals fwd;
        final Intervals dkdv;

        private Cover(Intervals fwd, Intervals dkdv) {
            this.fwd = fwd;
            this.dkdv = dkdv;
        }

        static Cover of(TileLayout layout, int b) {
            int[] headsOfVariant = new int[layout.variantCount()];
            for (int h = 0; h < layout.dims().heads(); h++) {
                headsOfVariant[layout.mask().variantOf(b, h)]++;
            }
            int nq = layout.numQBlocks();
            int nkv = layout.numKvBlocks();
            Hulls rows = new Hulls(nq);
            Hulls columns = new Hulls(nkv);
            byte[] combined = new byte[nkv];
            for (int qb = 0; qb < nq; qb++) {
                combineRow(layout, headsOfVariant, qb, combined);
                for (int kb = 0; kb < nkv; kb++) {
                    rows.add(qb, kb, combined[kb]);
                    columns.add(kb, qb, combined[kb]);
                }
            }
            Intervals fwd = rows.finish(nkv);
            Intervals dkdv = columns.finish(nq);
            countWaste(layout, headsOfVariant, fwd, dkdv);
            return new Cover(fwd, dkdv);
        }

        /** The row's class per tile over the heads: EMPTY or FULL where every head agrees, else PARTIAL. */
        private static void combineRow(TileLayout layout, int[] headsOfVariant, int qb, byte[] out) {
            boolean first = true;
            for (int v = 0; v < headsOfVariant.length; v++) {
                if (headsOfVariant[v] == 0) {
                    continue;
                }
                TileGrid grid = layout.grid(v);
                for (int r = 0, runs = grid.runCount(qb); r < runs; r++) {
                    byte c = (byte) grid.runClass(qb, r).ordinal();
                    for (int kb = grid.runStart(qb, r), end = grid.runEnd(qb, r); kb < end; kb++) {
                        out[kb] = first || out[kb] == c ? c : PARTIAL;
                    }
                }
                first = false;
            }
        }

        private static void countWaste(TileLayout layout, int[] headsOfVariant, Intervals fwd, Intervals dkdv) {
            for (int v = 0; v < headsOfVariant.length; v++) {
                long heads = headsOfVariant[v];
                if (heads == 0) {
                    continue;
                }
                TileGrid grid = layout.grid(v);
                for (int qb = 0; qb < grid.numQBlocks(); qb++) {
                    for (int r = 0, runs = grid.runCount(qb); r < runs; r++) {
                        TileClass c = grid.runClass(qb, r);
                        int start = grid.runStart(qb, r);
                        int end = grid.runEnd(qb, r);
                        if (c == TileClass.EMPTY) {
                            fwd.extraTiles += heads * overlap(start, end, fwd.lower[qb], fwd.upper[qb]);
                            for (int kb = start; kb < end; kb++) {
                                if (dkdv.lower[kb] <= qb && qb < dkdv.upper[kb]) {
                                    dkdv.extraTiles += heads;
                                }
                            }
                        } else if (c == TileClass.FULL) {
                            fwd.maskedFullTiles += heads * (end - start - overlap(start, end, fwd.lowerFull[qb], fwd.upperFull[qb]));
                            for (int kb = start; kb < end; kb++) {
                                if (qb < dkdv.lowerFull[kb] || qb >= dkdv.upperFull[kb]) {
                                    dkdv.maskedFullTiles += heads;
                                }
                            }
                        }
                    }
                }
            }
        }

        private static int overlap(int start, int end, int lo, int hi) {
            return Math.max(0, Math.min(end, hi) - Math.max(start, lo));
        }
    }

    /** The four bound arrays of one direction of one batch entry, and the tiles they misrepresent. */
    private static final class Intervals {
        final int[] lower;
        final int[] upper;
        final int[] lowerFull;
        final int[] upperFull;
        long extraTiles;
        long maskedFullTiles;

        Intervals(int lines) {
            lower = new int[lines];
            upper = new int[lines];
            lowerFull = new int[lines];
            upperFull = new int[lines];
        }

        int[] bounds(int k) {
            return k == 0 ? lower : k == 1 ? upper : k == 2 ? lowerFull : upperFull;
        }
    }

    /**
     * Per line, fed its tile classes in ascending position: the first and last non-EMPTY position and the longest
     * run of FULL positions (the earliest of equal length).
     */
    private static final class Hulls {
        private final int[] first;
        private final int[] last;
        private final int[] runStart;
        private final int[] bestStart;
        private final int[] bestLength;

        Hulls(int lines) {
            first = new int[lines];
            last = new int[lines];
            runStart = new int[lines];
            bestStart = new int[lines];
            bestLength = new int[lines];
            Arrays.fill(first, -1);
            Arrays.fill(runStart, -1);
        }

        void add(int line, int pos, byte c) {
            if (c != EMPTY) {
                if (first[line] < 0) {
                    first[line] = pos;
                }
                last[line] = pos;
            }
            if (c == FULL) {
                if (runStart[line] < 0) {
                    runStart[line] = pos;
                }
            } else {
                closeRun(line, pos);
            }
        }

        private void closeRun(int line, int end) {
            int start = runStart[line];
            if (start >= 0) {
                if (end - start > bestLength[line]) {
                    bestStart[line] = start;
                    bestLength[line] = end - start;
                }
                runStart[line] = -1;
            }
        }

        /** Closes open runs at {@code length} (the line length) and turns the hulls into bounds. */
        Intervals finish(int length) {
            Intervals out = new Intervals(first.length);
            for (int line = 0; line < first.length; line++) {
                closeRun(line, length);
                if (first[line] < 0) {
                    continue;
                }
                out.lower[line] = first[line];
                out.upper[line] = last[line] + 1;
                boolean anyFull = bestLength[line] > 0;
                out.lowerFull[line] = anyFull ? bestStart[line] : first[line];
                out.upperFull[line] = anyFull ? bestStart[line] + bestLength[line] : first[line];
            }
            return out;
        }
    }
}
