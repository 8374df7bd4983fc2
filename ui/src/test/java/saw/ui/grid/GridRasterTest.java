package saw.ui.grid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;

class GridRasterTest {
    /** One colour per class and one for outside the grid. */
    private static final int[] COLORS = {0xffff0000, 0xff00ff00, 0xff0000ff, 0xff808080};

    private static Mask randomMask(SplittableRandom rnd, int seq) {
        switch (rnd.nextInt(5)) {
            case 0: return new Mask.Causal(rnd.nextInt(41) - 20);
            case 1: return Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(1 + rnd.nextInt(seq / 4), 0));
            case 2: return Mask.Documents.ofLengths(seq / 3, seq / 5, seq / 7);
            case 3: return new Mask.RandomBlocks(16, 16, 1 + rnd.nextInt(6), rnd.nextLong());
            default: return Mask.Or.of(new Mask.Dilated(2 + rnd.nextInt(5)), Mask.GlobalTokens.first(1 + rnd.nextInt(64)));
        }
    }

    @Test
    void aPixelShowsTheStrongestClassOfAnyTileUnderItInFullColour() {
        long seed = Long.getLong("saw.test.seed", new SplittableRandom().nextLong());
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 60; round++) {
            int seq = 64 + rnd.nextInt(4000);
            TileGrid grid = BoundMask.bind(randomMask(rnd, seq), Dims.square(seq)).compile(16, 16).grid(0);
            int w = 20 + rnd.nextInt(60);
            int h = 20 + rnd.nextInt(60);
            double scale = rnd.nextBoolean() ? 0.05 + rnd.nextDouble() * 0.95 : 1 + rnd.nextDouble() * 11;
            Viewport v = new Viewport(rnd.nextDouble() * grid.numKvBlocks() / 2 - 10, rnd.nextDouble() * grid.numQBlocks() / 2 - 10, scale);
            int[] out = new int[w * h];
            GridRaster raster = new GridRaster(w, h);
            raster.render(grid, v, COLORS, out);
            int[] lo = new int[1];
            int[] hi = new int[1];
            int[] rlo = new int[1];
            int[] rhi = new int[1];
            boolean anyAttended = false;
            for (int y = 0; y < h; y++) {
                GridRaster.blockRange(v.y0(), scale, y, grid.numQBlocks(), rlo, rhi, 0);
                for (int x = 0; x < w; x++) {
                    GridRaster.blockRange(v.x0(), scale, x, grid.numKvBlocks(), lo, hi, 0);
                    int px = out[y * w + x];
                    String where = "seed " + seed + " round " + round + " pixel " + x + "," + y;
                    if (rlo[0] >= rhi[0] || lo[0] >= hi[0]) {
                        assertEquals(COLORS[3], px, where);
                        continue;
                    }
                    int strongest = 0;
                    for (int q = rlo[0]; q < rhi[0]; q++) {
                        for (int k = lo[0]; k < hi[0]; k++) {
                            strongest = Math.max(strongest, grid.classAt(q, k).ordinal());
                        }
                    }
                    anyAttended |= strongest > 0;
                    assertEquals(COLORS[strongest], px, where + " strongest class " + TileClass.values()[strongest]);
                }
            }
            assertEquals(anyAttended, raster.drewAttended(), "seed " + seed + " round " + round);
        }
    }

    @Test
    void aWindowAndSinksAtSixteenMillionTokensStayVisibleWhenFitted() {
        int seq = 1 << 24;
        Mask m = Mask.Or.of(Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(256, 0)), new Mask.Sinks(6));
        TileGrid grid = BoundMask.bind(m, Dims.square(seq)).compile(128, 128).grid(0);
        int w = 700;
        int h = 700;
        Viewport v = Viewport.fit(grid.numQBlocks(), grid.numKvBlocks(), w, h);
        int[] out = new int[w * h];
        new GridRaster(w, h).render(grid, v, COLORS, out);
        int diagonal = 0;
        int sinks = 0;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                if (out[y * w + x] == COLORS[TileClass.EMPTY.ordinal()] || out[y * w + x] == COLORS[3]) {
                    continue;
                }
                if (Math.abs(x - y) <= 2) {
                    diagonal++;
                } else if (x < w / 50) {
                    sinks++;
                }
            }
        }
        assertTrue(diagonal > h * 9 / 10, "the window's diagonal shows along the grid: " + diagonal + " px");
        assertTrue(sinks > h * 9 / 10, "the sinks column shows down the grid: " + sinks + " px");
    }

    @Test
    void columnsPartitionTheBlocksWhenZoomedOut() {
        long seed = Long.getLong("saw.test.seed", new SplittableRandom().nextLong());
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 200; round++) {
            int n = 1 + rnd.nextInt(100_000);
            double scale = 0.001 + rnd.nextDouble() * 0.999;
            double origin = rnd.nextDouble() * 100 - 50;
            int width = Math.max(1, (int) Math.ceil((n - origin) * scale) + 2);  // an origin past the grid shows nothing
            int[] lo = new int[width];
            int[] hi = new int[width];
            long covered = 0;
            int expectNext = Math.max(0, (int) Math.floor(origin));
            for (int p = 0; p < width; p++) {
                GridRaster.blockRange(origin, scale, p, n, lo, hi, p);
                if (lo[p] < hi[p]) {
                    assertEquals(expectNext, lo[p], "seed " + seed + ": columns leave a gap or overlap at " + p);
                    expectNext = hi[p];
                    covered += hi[p] - lo[p];
                }
            }
            long visible = Math.max(0, n - Math.max(0, (int) Math.floor(origin)));
            assertEquals(visible, covered, "seed " + seed + " round " + round);
        }
    }

    @Test
    void aMillionTokenGridRendersWithTheRightColoursFarFromEdges() {
        int seq = 1 << 20;
        TileGrid grid = BoundMask.bind(new Mask.Causal(0), Dims.square(seq)).compile(16, 16).grid(0);
        int w = 400;
        int h = 400;
        Viewport v = Viewport.fit(grid.numQBlocks(), grid.numKvBlocks(), w, h);
        int[] out = new int[w * h];
        new GridRaster(w, h).render(grid, v, COLORS, out);
        int lower = out[(h * 3 / 4) * w + w / 4];
        int upper = out[(h / 4) * w + w * 3 / 4];
        assertEquals(COLORS[TileClass.FULL.ordinal()], lower, "below the diagonal every tile is FULL");
        assertEquals(COLORS[TileClass.EMPTY.ordinal()], upper, "above the diagonal every tile is EMPTY");
        assertTrue(v.scale() < 0.01);
    }
}
