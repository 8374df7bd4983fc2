package saw.ui.grid;

/**
 * Which part of a tile grid a view shows: the grid position (in tiles; x along kv-blocks, y along q-blocks) at the
 * top-left pixel, and the pixels per tile. Zoom keeps the tile under the pointer still.
 */
public record Viewport(double x0, double y0, double scale) {
    /** The most a view zooms in: a tile this many pixels wide. */
    public static final double MAX_SCALE = 256;

    public Viewport {
        if (!(scale > 0) || Double.isInfinite(scale) || Double.isNaN(x0) || Double.isNaN(y0)) {
            throw new IllegalArgumentException("bad viewport " + x0 + ", " + y0 + " at scale " + scale);
        }
    }

    /** The whole grid of nq x nkv tiles, centred in a width x height view. */
    public static Viewport fit(int nq, int nkv, double width, double height) {
        double w = Math.max(1, width);
        double h = Math.max(1, height);
        double s = Math.min(MAX_SCALE, Math.min(w / nkv, h / nq) * 0.98);
        return new Viewport(-(w / s - nkv) / 2, -(h / s - nq) / 2, s);
    }

    /** Grid x (kv-block position) at a pixel column. */
    public double gridX(double px) {
        return x0 + px / scale;
    }

    public double gridY(double py) {
        return y0 + py / scale;
    }

    public double pixelX(double gx) {
        return (gx - x0) * scale;
    }

    public double pixelY(double gy) {
        return (gy - y0) * scale;
    }

    /**
     * Zooms by {@code factor} keeping the grid point under pixel (px, py) still; the scale stays between
     * {@code minScale} and {@link #MAX_SCALE}.
     */
    public Viewport zoom(double factor, double px, double py, double minScale) {
        double s = Math.max(Math.min(minScale, MAX_SCALE), Math.min(MAX_SCALE, scale * factor));
        return new Viewport(gridX(px) - px / s, gridY(py) - py / s, s);
    }

    /** Moves the view by a drag of (dx, dy) pixels. */
    public Viewport pan(double dx, double dy) {
        return new Viewport(x0 - dx / scale, y0 - dy / scale, scale);
    }
}
