package saw.engine.format;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.function.IntFunction;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * PyTorch FlexAttention: the arguments of {@code BlockMask.from_kv_blocks} (PARTIAL tiles in {@code kv_*}, FULL
 * tiles in {@code full_kv_*}) and the q-major arrays it derives from them. Each index row lists its tiles
 * ascending and then every other index ascending, which is the order FlexAttention's own dense-to-ordered
 * conversion produces, so the {@code q_*} arrays equal what {@code from_kv_blocks} computes.
 */
final class FlexFormat implements LayoutFormat {
    @Override
    public String name() {
        return "flex";
    }

    @Override
    public String description() {
        return "PyTorch FlexAttention: BlockMask.from_kv_blocks arrays (partial and full tiles, kv- and q-major)";
    }

    @Override
    public long estimateBytes(TileLayout layout) {
        Extents e = Extents.of(layout);
        int nq = layout.numQBlocks();
        int nkv = layout.numKvBlocks();
        int w = FormatJson.width(0, Math.max(nq, nkv));
        return FormatJson.HEADER_BYTES
                + 2 * (FormatJson.arrayBytes(w, e.batch(), e.heads(), nq) + FormatJson.arrayBytes(w, e.batch(), e.heads(), nq, nkv))
                + 2 * (FormatJson.arrayBytes(w, e.batch(), e.heads(), nkv) + FormatJson.arrayBytes(w, e.batch(), e.heads(), nkv, nq));
    }

    @Override
    public void write(TileLayout layout, OutputStream out) throws IOException {
        FormatJson.checkSize(this, layout);
        JsonGenerator g = FormatJson.begin(out, "saw.flex/1", layout);
        for (boolean kvMajor : new boolean[] {true, false}) {
            for (TileClass c : new TileClass[] {TileClass.PARTIAL, TileClass.FULL}) {
                String stem = (c == TileClass.FULL ? "full_" : "") + (kvMajor ? "kv" : "q");
                writePair(g, stem, layout, v -> kvMajor ? new Rows(layout.grid(v), c) : Columns.of(layout.grid(v), c));
            }
        }
        FormatJson.end(g);
    }

    /** Writes {@code <stem>_num_blocks} [B][H][lines] and {@code <stem>_indices} [B][H][lines][length]. */
    private static void writePair(JsonGenerator g, String stem, TileLayout layout, IntFunction<Lines> ofVariant) throws IOException {
        Lines[] byVariant = new Lines[layout.variantCount()];
        for (int v = 0; v < byVariant.length; v++) {
            byVariant[v] = ofVariant.apply(v);
        }
        int[] buf = new int[Math.max(layout.numQBlocks(), layout.numKvBlocks())];
        g.writeFieldName(stem + "_num_blocks");
        FormatJson.perBatchAndHead(g, layout, v -> {
            g.writeStartArray();
            for (int line = 0; line < byVariant[v].count(); line++) {
                g.writeNumber(byVariant[v].listed(line, buf));
            }
            g.writeEndArray();
        });
        g.writeFieldName(stem + "_indices");
        FormatJson.perBatchAndHead(g, layout, v -> {
            Lines lines = byVariant[v];
            g.writeStartArray();
            for (int line = 0; line < lines.count(); line++) {
                int n = lines.listed(line, buf);
                appendUnlisted(buf, n, lines.length());
                g.writeArray(buf, 0, lines.length());
            }
            g.writeEndArray();
        });
    }

    /** Completes buf[0, n), ascending, with the indices in [0, length) it lacks, ascending. */
    private static void appendUnlisted(int[] buf, int n, int length) {
        int pos = n;
        int next = 0;
        for (int x = 0; x < length; x++) {
            if (next < n && buf[next] == x) {
                next++;
            } else {
                buf[pos++] = x;
            }
        }
    }

    /** Lines of one tile class, kv-major (rows) or q-major (columns). */
    private interface Lines {
        int count();

        /** Entries per line: the other axis' block count. */
        int length();

        /** Writes the line's block indices, ascending, to buf; returns how many. */
        int listed(int line, int[] buf);
    }

    private record Rows(TileGrid grid, TileClass c) implements Lines {
        @Override
        public int count() {
            return grid.numQBlocks();
        }

        @Override
        public int length() {
            return grid.numKvBlocks();
        }

        @Override
        public int listed(int qBlock, int[] buf) {
            int[] kvBlocks = grid.kvBlocks(qBlock, c);
            System.arraycopy(kvBlocks, 0, buf, 0, kvBlocks.length);
            return kvBlocks.length;
        }
    }

    /** The tiles of one class transposed: for each kv-block, its q-blocks ascending (compressed sparse columns). */
    private static final class Columns implements Lines {
        private final int numQBlocks;
        private final int[] columnStart;
        private final int[] qBlocks;

        private Columns(int numQBlocks, int[] columnStart, int[] qBlocks) {
            this.numQBlocks = numQBlocks;
            this.columnStart = columnStart;
            this.qBlocks = qBlocks;
        }

        static Columns of(TileGrid grid, TileClass c) {
            int nkv = grid.numKvBlocks();
            int[] start = new int[nkv + 1];
            forEachTile(grid, c, (qb, kb) -> start[kb + 1]++);
            for (int kb = 0; kb < nkv; kb++) {
                start[kb + 1] += start[kb];
            }
            int[] fill = Arrays.copyOf(start, nkv);
            int[] rows = new int[start[nkv]];
            forEachTile(grid, c, (qb, kb) -> rows[fill[kb]++] = qb);
            return new Columns(grid.numQBlocks(), start, rows);
        }

        /** Visits the tiles of class c row by row, so each column sees its q-blocks ascending. */
        private static void forEachTile(TileGrid grid, TileClass c, TileVisitor visitor) {
            for (int qb = 0; qb < grid.numQBlocks(); qb++) {
                for (int r = 0, runs = grid.runCount(qb); r < runs; r++) {
                    if (grid.runClass(qb, r) == c) {
                        for (int kb = grid.runStart(qb, r), end = grid.runEnd(qb, r); kb < end; kb++) {
                            visitor.visit(qb, kb);
                        }
                    }
                }
            }
        }

        @Override
        public int count() {
            return columnStart.length - 1;
        }

        @Override
        public int length() {
            return numQBlocks;
        }

        @Override
        public int listed(int kvBlock, int[] buf) {
            int from = columnStart[kvBlock];
            int n = columnStart[kvBlock + 1] - from;
            System.arraycopy(qBlocks, from, buf, 0, n);
            return n;
        }
    }

    private interface TileVisitor {
        void visit(int qBlock, int kvBlock);
    }
}
