package saw.engine.format;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * Native Sparse Attention style selection, per query token: the kv-blocks (of the layout's kv block size) in which
 * the token attends at least one key, ascending, in {@code block_indices} [B][Sq][H][S] padded with -1 to S, the
 * largest count; {@code block_counts} [B][Sq][H] says how many are real. B and H are 1 where the mask does not
 * vary with them.
 */
final class NsaFormat implements LayoutFormat {
    @Override
    public String name() {
        return "nsa";
    }

    @Override
    public String description() {
        return "Native Sparse Attention style per-token kv-block selection: block_indices (padded with -1) and block_counts";
    }

    /** Uses the most non-EMPTY tiles in any q-block row as the bound on S: no token selects more. */
    @Override
    public long estimateBytes(TileLayout layout) {
        Extents e = Extents.of(layout);
        int widest = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            TileGrid grid = layout.grid(v);
            for (int qb = 0; qb < grid.numQBlocks(); qb++) {
                int n = 0;
                for (int r = 0, runs = grid.runCount(qb); r < runs; r++) {
                    if (grid.runClass(qb, r) != TileClass.EMPTY) {
                        n += grid.runEnd(qb, r) - grid.runStart(qb, r);
                    }
                }
                widest = Math.max(widest, n);
            }
        }
        int seqQ = layout.dims().seqQ();
        return FormatJson.HEADER_BYTES
                + FormatJson.arrayBytes(FormatJson.width(-1, layout.numKvBlocks()), e.batch(), seqQ, e.heads(), widest)
                + FormatJson.arrayBytes(FormatJson.width(0, widest), e.batch(), seqQ, e.heads());
    }

    @Override
    public void write(TileLayout layout, OutputStream out) throws IOException {
        FormatJson.checkSize(this, layout);
        Extents e = Extents.of(layout);
        Selection[] selections = new Selection[layout.variantCount()];
        int width = 0;
        for (int v = 0; v < selections.length; v++) {
            selections[v] = new Selection(layout, v);
            width = Math.max(width, selections[v].maxCount);
        }
        int seqQ = layout.dims().seqQ();
        int[] buf = new int[width];
        JsonGenerator g = FormatJson.begin(out, "saw.nsa/1", layout);
        g.writeFieldName("block_indices");
        g.writeStartArray();
        for (int b = 0; b < e.batch(); b++) {
            g.writeStartArray();
            for (int i = 0; i < seqQ; i++) {
                g.writeStartArray();
                for (int h = 0; h < e.heads(); h++) {
                    int n = selections[layout.mask().variantOf(b, h)].blocks(i, buf);
                    Arrays.fill(buf, n, width, -1);
                    g.writeArray(buf, 0, width);
                }
                g.writeEndArray();
            }
            g.writeEndArray();
        }
        g.writeEndArray();
        int[] perHead = new int[e.heads()];
        g.writeFieldName("block_counts");
        g.writeStartArray();
        for (int b = 0; b < e.batch(); b++) {
            g.writeStartArray();
            for (int i = 0; i < seqQ; i++) {
                for (int h = 0; h < e.heads(); h++) {
                    perHead[h] = selections[layout.mask().variantOf(b, h)].counts[i];
                }
                g.writeArray(perHead, 0, perHead.length);
            }
            g.writeEndArray();
        }
        g.writeEndArray();
        FormatJson.end(g);
    }

    static int[][] blocksOf(TileLayout layout, int variant) {
        Selection sel = new Selection(layout, variant);
        int[] buf = new int[layout.numKvBlocks()];
        int[][] out = new int[layout.dims().seqQ()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = Arrays.copyOf(buf, sel.blocks(i, buf));
        }
        return out;
    }

    /**
     * Which kv-blocks each query token of one variant attends: every FULL tile of its row, none of the EMPTY ones,
     * and for PARTIAL tiles one bit per (token, tile), decided by classifying the token's row inside the tile.
     */
    private static final class Selection {
        private final TileGrid grid;
        private final int blockQ;
        private final int[] counts;
        /** Per q-block: PARTIAL tiles in the rows before it, so tile p of row qb owns bits from (before + p) * blockQ. */
        private final long[] partialBefore;
        private final long[] bits;
        private int maxCount;

        Selection(TileLayout layout, int variant) {
            grid = layout.grid(variant);
            blockQ = layout.blockQ();
            counts = new int[layout.dims().seqQ()];
            partialBefore = new long[grid.numQBlocks() + 1];
            for (int qb = 0; qb < grid.numQBlocks(); qb++) {
                partialBefore[qb + 1] = partialBefore[qb] + grid.kvBlocks(qb, TileClass.PARTIAL).length;
            }
            bits = new long[(int) ((partialBefore[grid.numQBlocks()] * blockQ + 63) >>> 6)];
            BoundMask mask = layout.mask();
            for (int qb = 0; qb < grid.numQBlocks(); qb++) {
                int q0 = layout.qStart(qb);
                int q1 = layout.qEnd(qb);
                long tile = partialBefore[qb];
                for (int r = 0, runs = grid.runCount(qb); r < runs; r++) {
                    TileClass c = grid.runClass(qb, r);
                    int start = grid.runStart(qb, r);
                    int end = grid.runEnd(qb, r);
                    if (c == TileClass.FULL) {
                        for (int i = q0; i < q1; i++) {
                            counts[i] += end - start;
                        }
                    } else if (c == TileClass.PARTIAL) {
                        for (int kb = start; kb < end; kb++, tile++) {
                            int k0 = layout.kvStart(kb);
                            int k1 = layout.kvEnd(kb);
                            for (int i = q0; i < q1; i++) {
                                if (mask.classify(variant, i, i + 1, k0, k1) != TileClass.EMPTY) {
                                    long bit = tile * blockQ + (i - q0);
                                    bits[(int) (bit >>> 6)] |= 1L << bit;
                                    counts[i]++;
                                }
                            }
                        }
                    }
                }
            }
            for (int n : counts) {
                maxCount = Math.max(maxCount, n);
            }
        }

        /** Writes the kv-blocks token i attends, ascending, to buf; returns how many. */
        int blocks(int i, int[] buf) {
            int qb = i / blockQ;
            int offset = i - qb * blockQ;
            long tile = partialBefore[qb];
            int n = 0;
            for (int r = 0, runs = grid.runCount(qb); r < runs; r++) {
                TileClass c = grid.runClass(qb, r);
                if (c == TileClass.EMPTY) {
                    continue;
                }
                for (int kb = grid.runStart(qb, r), end = grid.runEnd(qb, r); kb < end; kb++) {
                    if (c == TileClass.FULL) {
                        buf[n++] = kb;
                    } else {
                        long bit = tile++ * blockQ + offset;
                        if ((bits[(int) (bit >>> 6)] & (1L << bit)) != 0) {
                            buf[n++] = kb;
                        }
                    }
                }
            }
            return n;
        }
    }
}
