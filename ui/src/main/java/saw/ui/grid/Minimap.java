package saw.ui.grid;

import java.nio.IntBuffer;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.input.MouseEvent;
import javafx.scene.paint.Color;
import saw.engine.mask.TileGrid;

/**
 * The whole grid, small, with the main view's viewport outlined; a click or drag centres the main view there.
 * The overview is rasterised once per grid (or colour change), the outline on every viewport change.
 */
final class Minimap extends Canvas {
    static final int SIDE = 132;
    private final TileGridView main;
    private final WritableImage image = new WritableImage(SIDE, SIDE);
    private final int[] pixels = new int[SIDE * SIDE];
    private final GridRaster raster = new GridRaster(SIDE, SIDE);
    private Viewport overview;
    private TileGrid drawn;
    private int[] drawnColors;

    Minimap(TileGridView main) {
        super(SIDE, SIDE);
        this.main = main;
        setId("minimap");
        getStyleClass().add("minimap");
        main.gridProperty().addListener(o -> redraw());
        main.viewportProperty().addListener(o -> redraw());
        addEventHandler(MouseEvent.MOUSE_PRESSED, this::centre);
        addEventHandler(MouseEvent.MOUSE_DRAGGED, this::centre);
    }

    private void centre(MouseEvent e) {
        if (overview != null) {
            main.centreOn(overview.gridX(e.getX()), overview.gridY(e.getY()));
            e.consume();
        }
    }

    /** The overview's viewport: the whole grid in the map. */
    Viewport overview() {
        return overview;
    }

    void redraw() {
        GraphicsContext gc = getGraphicsContext2D();
        TileGrid g = main.gridProperty().get();
        int[] colors = main.classColors();
        if (g == null) {
            gc.clearRect(0, 0, SIDE, SIDE);
            overview = null;
            drawn = null;
            return;
        }
        if (g != drawn || !java.util.Arrays.equals(colors, drawnColors)) {
            overview = Viewport.fit(g.numQBlocks(), g.numKvBlocks(), SIDE, SIDE);
            raster.render(g, overview, colors, pixels);
            image.getPixelWriter().setPixels(0, 0, SIDE, SIDE, PixelFormat.getIntArgbPreInstance(), IntBuffer.wrap(pixels), SIDE);
            drawn = g;
            drawnColors = colors;
        }
        gc.drawImage(image, 0, 0);
        Viewport v = main.viewportProperty().get();
        double x0 = overview.pixelX(v.gridX(0));
        double y0 = overview.pixelY(v.gridY(0));
        double x1 = overview.pixelX(v.gridX(main.getWidth()));
        double y1 = overview.pixelY(v.gridY(main.getHeight()));
        // a view far smaller than a map pixel still gets an outline one can see, centred where it is
        double cx = (x0 + x1) / 2;
        double cy = (y0 + y1) / 2;
        double half = 4;
        x0 = Math.min(x0, cx - half);
        x1 = Math.max(x1, cx + half);
        y0 = Math.min(y0, cy - half);
        y1 = Math.max(y1, cy + half);
        double l = Math.max(0.5, Math.min(SIDE - 1.5, x0));
        double t = Math.max(0.5, Math.min(SIDE - 1.5, y0));
        double r = Math.max(l + 1, Math.min(SIDE - 0.5, x1));
        double b = Math.max(t + 1, Math.min(SIDE - 0.5, y1));
        gc.setStroke(Color.web("#cc79a7"));
        gc.setLineWidth(2);
        gc.strokeRect(l, t, r - l, b - t);
        gc.setStroke(Color.gray(0.5));
        gc.setLineWidth(1);
        gc.strokeRect(0.5, 0.5, SIDE - 1, SIDE - 1);
    }

    /** The viewport outline's rectangle in map pixels: left, top, right, bottom (for tests). */
    double[] outline() {
        Viewport v = main.viewportProperty().get();
        return new double[] {overview.pixelX(v.gridX(0)), overview.pixelY(v.gridY(0)),
            overview.pixelX(v.gridX(main.getWidth())), overview.pixelY(v.gridY(main.getHeight()))};
    }
}
