package saw.engine.format;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * The token mask itself: {@code mask} [B][H][Sq] holds one string of Skv characters per query token, '1' where
 * it attends the key, else '0'. B and H are 1 where the mask does not vary with them. For checking other formats
 * and small experiments, so it is refused above {@value #MAX_SEQ} tokens on either axis.
 */
final class DenseFormat implements LayoutFormat {
    static final int MAX_SEQ = 16384;

    @Override
    public String name() {
        return "dense";
    }

    @Override
    public String description() {
        return "the token mask as rows of 0/1 characters, for checks and small experiments (at most " + MAX_SEQ + " x " + MAX_SEQ + ")";
    }

    @Override
    public long estimateBytes(TileLayout layout) {
        Extents e = Extents.of(layout);
        Dims d = layout.dims();
        return FormatJson.HEADER_BYTES + FormatJson.arrayBytes(3, e.batch(), e.heads()) + (long) e.batch() * e.heads() * d.seqQ() * (d.seqKv() + 3L);
    }

    @Override
    public void write(TileLayout layout, OutputStream out) throws IOException {
        Dims d = layout.dims();
        if (d.seqQ() > MAX_SEQ || d.seqKv() > MAX_SEQ) {
            throw new IllegalArgumentException("the dense export is limited to " + MAX_SEQ + " x " + MAX_SEQ + " tokens, but this mask is "
                    + d.seqQ() + " x " + d.seqKv() + "; use the flex, ejkernel or nsa format for larger masks");
        }
        char[] row = new char[d.seqKv()];
        JsonGenerator g = FormatJson.begin(out, "saw.dense/1", layout);
        g.writeFieldName("mask");
        FormatJson.perBatchAndHead(g, layout, variant -> {
            g.writeStartArray();
            for (int i = 0; i < d.seqQ(); i++) {
                fillRow(layout, variant, i, row);
                g.writeString(row, 0, row.length);
            }
            g.writeEndArray();
        });
        FormatJson.end(g);
    }

    /** Token i's row: EMPTY and FULL tiles are filled whole, PARTIAL ones decided per token row and, if needed, per pair. */
    private static void fillRow(TileLayout layout, int variant, int i, char[] row) {
        BoundMask mask = layout.mask();
        TileGrid grid = layout.grid(variant);
        int qb = i / layout.blockQ();
        for (int r = 0, runs = grid.runCount(qb); r < runs; r++) {
            TileClass c = grid.runClass(qb, r);
            int k0 = layout.kvStart(grid.runStart(qb, r));
            int k1 = layout.kvEnd(grid.runEnd(qb, r) - 1);
            if (c != TileClass.PARTIAL) {
                Arrays.fill(row, k0, k1, c == TileClass.FULL ? '1' : '0');
                continue;
            }
            for (int kb = grid.runStart(qb, r), end = grid.runEnd(qb, r); kb < end; kb++) {
                int t0 = layout.kvStart(kb);
                int t1 = layout.kvEnd(kb);
                TileClass tokenRow = mask.classify(variant, i, i + 1, t0, t1);
                if (tokenRow != TileClass.PARTIAL) {
                    Arrays.fill(row, t0, t1, tokenRow == TileClass.FULL ? '1' : '0');
                } else {
                    for (int j = t0; j < t1; j++) {
                        row[j] = mask.attends(variant, i, j) ? '1' : '0';
                    }
                }
            }
        }
    }
}
