package saw.ui.grid;

import saw.engine.mask.TileGrid;

/**
 * Draws the visible part of a tile grid into ARGB pixels. Each pixel shows the tiles under it blended by class: at
 * high zoom that is one tile, at low zoom the share of each class among the tiles the pixel covers. Columns are
 * counted exactly from the grid's runs; rows are sampled (at most {@link #ROW_SAMPLES} per pixel), so the work is
 * bounded by the pixel count and the runs in view, not by the grid size: the same at 1K and 1M tokens.
 */
public final class GridRaster {
    /** q-block rows looked at per pixel row when a pixel covers more rows than this. */
    static final int ROW_SAMPLES = 4;

    private final int[] colLo;
    private final int[] colHi;
    private final int[][] acc;
    /** Per class, a difference array over columns of how many sampled rows cover the whole column with that class. */
    private final int[][] cover;
    private final int width;
    private final int height;

    public GridRaster(int width, int height) {
        this.width = width;
        this.height = height;
        this.colLo = new int[width];
        this.colHi = new int[width];
        this.acc = new int[3][width];
        this.cover = new int[3][width + 1];
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
            for (int k = 0; k < 3; k++) {
                java.util.Arrays.fill(acc[k], firstCol, lastCol + 1, 0);
                java.util.Arrays.fill(cover[k], firstCol, lastCol + 2, 0);
            }
            int samples = Math.min(ROW_SAMPLES, hi - lo);
            for (int s = 0; s < samples; s++) {
                accumulateRow(grid, lo + (int) ((long) s * (hi - lo) / samples), firstCol, lastCol);
            }
            for (int k = 0; k < 3; k++) {
                int[] a = acc[k];
                int[] d = cover[k];
                int covered = 0;
                for (int c = firstCol; c <= lastCol; c++) {
                    covered += d[c];
                    if (covered != 0) {
                        a[c] += covered * (colHi[c] - colLo[c]);
                    }
                }
            }
            for (int c = 0; c < width; c++) {
                out[base + c] = c < firstCol || c > lastCol ? background : blend(c, colors);
            }
        }
    }

    /**
     * Adds, per pixel column, how many tiles of each class row {@code qb} has under it: columns a run covers whole
     * go into the difference arrays (constant work per run), the one or two it covers in part are added directly.
     */
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
        for (int run = firstRunAt(grid, qb, runs, from); run < runs; run++) {
            int rs = grid.runStart(qb, run);
            if (rs >= to) {
                break;
            }
            int re = grid.runEnd(qb, run);
            int k = grid.runClass(qb, run).ordinal();
            int c0 = firstColumnEndingAfter(rs, firstCol, lastCol);
            int c1 = lastColumnStartingBefore(re, firstCol, lastCol);
            if (c0 > c1) {
                continue;
            }
            if (c0 == c1 && (colLo[c0] < rs || colHi[c0] > re)) {
                acc[k][c0] += Math.min(colHi[c0], re) - Math.max(colLo[c0], rs);
                continue;
            }
            // columns are contiguous, so only the first can start before rs and only the last end after re
            int full0 = c0;
            int full1 = c1;
            if (colLo[c0] < rs) {
                acc[k][c0] += colHi[c0] - rs;
                full0++;
            }
            if (colHi[c1] > re) {
                acc[k][c1] += re - colLo[c1];
                full1--;
            }
            if (full0 <= full1) {
                cover[k][full0]++;
                cover[k][full1 + 1]--;
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

    private int blend(int c, int[] colors) {
        int n0 = acc[0][c];
        int n1 = acc[1][c];
        int n2 = acc[2][c];
        if ((n1 | n2) == 0) {
            return n0 == 0 ? colors[3] : colors[0];
        }
        if ((n0 | n2) == 0) {
            return colors[1];
        }
        if ((n0 | n1) == 0) {
            return colors[2];
        }
        double total = (double) n0 + n1 + n2;
        int r = (int) ((n0 * (double) ((colors[0] >> 16) & 0xff) + n1 * (double) ((colors[1] >> 16) & 0xff)
                + n2 * (double) ((colors[2] >> 16) & 0xff)) / total + 0.5);
        int g = (int) ((n0 * (double) ((colors[0] >> 8) & 0xff) + n1 * (double) ((colors[1] >> 8) & 0xff)
                + n2 * (double) ((colors[2] >> 8) & 0xff)) / total + 0.5);
        int b = (int) ((n0 * (double) (colors[0] & 0xff) + n1 * (double) (colors[1] & 0xff)
                + n2 * (double) (colors[2] & 0xff)) / total + 0.5);
        return 0xff000000 | (r << 16) | (g << 8) | b;
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
