package saw.ui.grid;

/** The tiles a view shows, as half-open block ranges clipped to the grid; empty ranges when it shows none. */
public record VisibleRange(int qFrom, int qTo, int kvFrom, int kvTo) {
    public static VisibleRange of(Viewport v, double width, double height, int nq, int nkv) {
        int q0 = clamp((int) Math.floor(v.gridY(0)), nq);
        int q1 = clamp((int) Math.ceil(v.gridY(height)), nq);
        int k0 = clamp((int) Math.floor(v.gridX(0)), nkv);
        int k1 = clamp((int) Math.ceil(v.gridX(width)), nkv);
        return new VisibleRange(q0, Math.max(q0, q1), k0, Math.max(k0, k1));
    }

    private static int clamp(int v, int n) {
        return Math.max(0, Math.min(n, v));
    }

    public long tiles() {
        return (long) (qTo - qFrom) * (kvTo - kvFrom);
    }
}
