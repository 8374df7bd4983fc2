package saw.ui.grid;

import java.util.Arrays;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;

/**
 * Draws the visible part of a tile grid into ARGB pixels. Each pixel shows the strongest class among all the tiles
 * under it (FULL over PARTIAL over EMPTY), in its full colour: zoomed out, a single attended tile still shows, so a
 * thin window or a sinks column never fades into the background. Every q-block row under a pixel is looked at, but
 * only through its runs of non-EMPTY tiles, each marked on the pixel columns it touches in constant work (a
 * difference array per class): the cost is the runs in view plus the pixels, which at 16M tokens with a window and
 * sinks is a few runs per row.
 */
public final class GridRaster {
    private static final int PARTIAL = TileClass.PARTIAL.ordinal();
    private static final int FULL = TileClass.FULL.ordinal();

    private final int[] colLo;
    private final int[] colHi;
    /** Per class (PARTIAL, FULL), a difference array over columns of the runs that touch each column. */
    private final int[] partialCover;
    private final int[] fullCover;
    private final int width;
    private final int height;
    private boolean attended;

    public GridRaster(int width, int height) {
        this.width = width;
        this.height = height;
        this.colLo = new int[width];
        this.colHi = new int[width];
        this.partialCover = new int[width + 1];
        this.fullCover = new int[width + 1];
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
    }

    /** Whether the last {@link #render} drew any PARTIAL or FULL tile. */
    public boolean drewAttended() {
        return attended;
    }

    /**
     * Fills {@code out} (width * height, row-major) with the grid seen through {@code view}.
     *
     * @param colors ARGB of EMPTY, PARTIAL, FULL, then the background outside the grid
     */
    public void render(TileGrid grid, Viewport view, int[] colors, int[] out) {
        int nq = grid.numQBlocks();
        int nkv = grid.numKvBlocks();
        int background = colors[3];
        attended = false;
        int firstCol = -1;
        int lastCol = -1;
        for (int c = 0; c < width; c++) {
            blockRange(view.x0(), view.scale(), c, nkv, colLo, colHi, c);
            if (colLo[c] < colHi[c]) {
                if (firstCol < 0) {
                    firstCol = c;
                }
                lastCol = c;
            }
        }
        int[] rowLo = new int[1];
        int[] rowHi = new int[1];
        int prevLo = -1;
        int prevHi = -1;
        for (int y = 0; y < height; y++) {
            int base = y * width;
            blockRange(view.y0(), view.scale(), y, nq, rowLo, rowHi, 0);
            int lo = rowLo[0];
            int hi = rowHi[0];
            if (lo >= hi || firstCol < 0) {
                Arrays.fill(out, base, base + width, background);
                prevLo = -1;
                continue;
            }
            if (lo == prevLo && hi == prevHi) {
                System.arraycopy(out, base - width, out, base, width);
                continue;
            }
            prevLo = lo;
            prevHi = hi;
            Arrays.fill(partialCover, firstCol, lastCol + 2, 0);
            Arrays.fill(fullCover, firstCol, lastCol + 2, 0);
            for (int qb = lo; qb < hi; qb++) {
                markRow(grid, qb, firstCol, lastCol);
            }
            Arrays.fill(out, base, base + firstCol, background);
            Arrays.fill(out, base + lastCol + 1, base + width, background);
            int partial = 0;
            int full = 0;
            for (int c = firstCol; c <= lastCol; c++) {
                partial += partialCover[c];
                full += fullCover[c];
                out[base + c] = full > 0 ? colors[2] : partial > 0 ? colors[1] : colors[0];
                if ((partial | full) != 0) {
                    attended = true;
                }
            }
        }
    }

    /** Marks, per class, the pixel columns that each non-EMPTY run of row {@code qb} touches. */
    private void markRow(TileGrid grid, int qb, int firstCol, int lastCol) {
        int runs = grid.runCount(qb);
        int from = colLo[firstCol];
        int to = colHi[lastCol];
        for (int run = firstRunAt(grid, qb, runs, from); run < runs; run++) {
            int rs = grid.runStart(qb, run);
            if (rs >= to) {
                break;
            }
            int k = grid.runClass(qb, run).ordinal();
            if (k != PARTIAL && k != FULL) {
                continue;
            }
            int c0 = firstColumnEndingAfter(rs, firstCol, lastCol);
            int c1 = lastColumnStartingBefore(grid.runEnd(qb, run), firstCol, lastCol);
            if (c0 <= c1) {
                int[] d = k == FULL ? fullCover : partialCover;
                d[c0]++;
                d[c1 + 1]--;
            }
        }
    }

    /** The first column in [first, last] whose blocks end after {@code kv} (last + 1 when none). */
    private int firstColumnEndingAfter(int kv, int first, int last) {
        int lo = first;
        int hi = last + 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (colHi[mid] > kv) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** The last column in [first, last] whose blocks start before {@code kv} (first - 1 when none). */
    private int lastColumnStartingBefore(int kv, int first, int last) {
        int lo = first - 1;
        int hi = last;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (colLo[mid] < kv) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static int firstRunAt(TileGrid grid, int qb, int runs, int kv) {
        int lo = 0;
        int hi = runs - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (grid.runStart(qb, mid) <= kv) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * The blocks under pixel {@code p} (half-open, clipped to [0, n)): the one at the pixel's centre when a tile is
     * at least a pixel wide, else every block whose start falls in the pixel (at least one).
     */
    static void blockRange(double origin, double scale, int p, int n, int[] lo, int[] hi, int at) {
        int l;
        int h;
        if (scale >= 1) {
            l = (int) Math.floor(origin + (p + 0.5) / scale);
            h = l + 1;
        } else {
            l = (int) Math.floor(origin + p / scale);
            h = Math.max(l + 1, (int) Math.floor(origin + (p + 1) / scale));
        }
        lo[at] = Math.max(0, Math.min(n, l));
        hi[at] = Math.max(lo[at], Math.min(n, h));
    }
}
