package saw.ui.ring;

import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.ring.RingPlan;

/**
 * The tile grid of a ring plan as ARGB pixels, with no JavaFX: each non-empty tile in its query owner's colour,
 * bright where that device computes it at the chosen step, faded elsewhere; empty tiles white. At low zoom a pixel
 * shows the tile under its centre, so the cost is the picture's size, not the layout's.
 */
public final class RingRaster {
    static final int EMPTY = 0xFFFFFFFF;

    private RingRaster() {}

    /** {@code width} x {@code height} pixels, row-major, of the grid of {@code variant} at step {@code step}. */
    public static int[] argb(RingPlan plan, int variant, int step, int width, int height) {
        TileGrid grid = plan.layout().grid(variant);
        int nq = grid.numQBlocks();
        int nkv = grid.numKvBlocks();
        int n = plan.devices();
        int[] kvOwner = new int[nkv];
        for (int kb = 0; kb < nkv; kb++) {
            kvOwner[kb] = plan.kvBlockOwner(kb);
        }
        int[] px = new int[width * height];
        for (int y = 0; y < height; y++) {
            int qb = (int) ((y + 0.5) * nq / height);
            int owner = plan.qBlockOwner(qb);
            int shard = Math.floorMod(owner - step, n);
            for (int x = 0; x < width; x++) {
                int kb = (int) ((x + 0.5) * nkv / width);
                TileClass c = grid.classAt(qb, kb);
                px[y * width + x] = c == TileClass.EMPTY ? EMPTY : deviceColour(owner, kvOwner[kb] == shard);
            }
        }
        return px;
    }

    /** Device {@code d} of {@code n}: hues spread round the wheel (golden-angle steps keep neighbours apart). */
    public static int deviceColour(int d, boolean bright) {
        float hue = (float) ((d * 0.618033988749895) % 1.0);
        int rgb = java.awt.Color.HSBtoRGB(hue, bright ? 0.85f : 0.25f, bright ? 0.85f : 0.97f);
        return 0xFF000000 | (rgb & 0xFFFFFF);
    }
}
