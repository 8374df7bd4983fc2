package saw.ui.grid;

import saw.engine.mask.TileGrid;

/**
 * Draws the visible part of a tile grid into ARGB pixels. Each pixel shows the tiles under it blended by class: at
 * high zoom that is one tile, at low zoom the share of each class among the tiles the pixel covers. Columns are
 * counted exactly from the grid's runs; rows are sampled (at most {@link #ROW_SAMPLES} per pixel), so the work is
 * bounded by the pixel count, not by the grid size: the same at 1K and 1M tokens.
 */
public final class GridRaster {
    /** q-block rows looked at per pixel row when a pixel covers more rows than this. */
    static final int ROW_SAMPLES = 4;

    private final int[] colLo;
    private final int[] colHi;
    private final int[][] acc;
    private final int width;
    private final int height;

    public GridRaster(int width, int height) {
        this.width = width;
        this.height = height;
        this.colLo = new int[width];
        this.colHi = new int[width];
        this.acc = new int[3][width];
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
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
                java.util.Arrays.fill(out, base, base + width, background);
                prevLo = -1;
                continue;
            }
            if (lo == prevLo && hi == prevHi) {
                System.arraycopy(out, base - width, out, base, width);
                continue;
            }
            prevLo = lo;
            prevHi = hi;
            for (int[] a : acc) {
                java.util.Arrays.fill(a, firstCol, lastCol + 1, 0);
            }
            int samples = Math.min(ROW_SAMPLES, hi - lo);
            for (int s = 0; s < samples; s++) {
                accumulateRow(grid, lo + (int) ((long) s * (hi - lo) / samples), firstCol, lastCol);
            }
            for (int c = 0; c < width; c++) {
                out[base + c] = c < firstCol || c > lastCol ? background : blend(c, colors);
            }
        }
    }

    /** Adds, per pixel column, how many tiles of each class row {@code qb} has under it. */
    private void accumulateRow(TileGrid grid, int qb, int firstCol, int lastCol) {
        int runs = grid.runCount(qb);
        int from = colLo[firstCol];
        int to = colHi[lastCol];
        if (runs > 8 * (lastCol - firstCol + 1)) {
            for (int c = firstCol; c <= lastCol; c++) {
                acc[grid.classAt(qb, (colLo[c] + colHi[c] - 1) >>> 1).ordinal()][c] += colHi[c] - colLo[c];
            }
            return;
        }
        int run = firstRunAt(grid, qb, runs, from);
        int c = firstCol;
        for (; run < runs; run++) {
            int rs = grid.runStart(qb, run);
            if (rs >= to) {
                break;
            }
            int re = grid.runEnd(qb, run);
            int[] a = acc[grid.runClass(qb, run).ordinal()];
            while (c <= lastCol && colHi[c] <= rs) {
                c++;
            }
            for (int cc = c; cc <= lastCol && colLo[cc] < re; cc++) {
                int overlap = Math.min(colHi[cc], re) - Math.max(colLo[cc], rs);
                if (overlap > 0) {
                    a[cc] += overlap;
                }
            }
        }
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

    private int blend(int c, int[] colors) {
        int total = acc[0][c] + acc[1][c] + acc[2][c];
        if (total == 0) {
            return colors[3];
        }
        double r = 0;
        double g = 0;
        double b = 0;
        for (int k = 0; k < 3; k++) {
            int n = acc[k][c];
            if (n != 0) {
                r += n * ((colors[k] >> 16) & 0xff);
                g += n * ((colors[k] >> 8) & 0xff);
                b += n * (colors[k] & 0xff);
            }
        }
        return 0xff000000 | ((int) (r / total + 0.5) << 16) | ((int) (g / total + 0.5) << 8) | (int) (b / total + 0.5);
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
