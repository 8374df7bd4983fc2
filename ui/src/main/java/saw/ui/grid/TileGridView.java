package saw.ui.grid;

import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.css.CssMetaData;
import javafx.css.Styleable;
import javafx.css.StyleableObjectProperty;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Tooltip;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import saw.engine.mask.TileGrid;
import saw.ui.StyleableColours;

/**
 * The tile grid: a canvas that draws only what is visible (through {@link GridRaster}), with wheel zoom around the
 * pointer, drag to pan, fit, a tooltip per tile, click to open a tile and a brush that collects the tiles a drag
 * passes over. Colours come from the stylesheet ({@code -saw-empty-color} and friends on {@code .tile-grid}).
 * It shows engine data but computes nothing about masks: tooltip text and what a click or a stroke does are given.
 */
public final class TileGridView extends Region {
    private static final double CLICK_SLOP = 4;

    private final Canvas canvas = new Canvas();
    private final ObjectProperty<TileGrid> grid = new SimpleObjectProperty<>(this, "grid");
    private final ReadOnlyObjectWrapper<Viewport> viewport = new ReadOnlyObjectWrapper<>(this, "viewport",
            new Viewport(0, 0, 1));
    private final ReadOnlyObjectWrapper<VisibleRange> visibleRange = new ReadOnlyObjectWrapper<>(this, "visibleRange",
            new VisibleRange(0, 0, 0, 0));
    private final ReadOnlyObjectWrapper<TileRef> hovered = new ReadOnlyObjectWrapper<>(this, "hovered");
    private final javafx.beans.property.ReadOnlyBooleanWrapper showsAttended =
            new javafx.beans.property.ReadOnlyBooleanWrapper(this, "showsAttended", true);
    private final BooleanProperty brush = new SimpleBooleanProperty(this, "brush");
    private final ObjectProperty<Set<TileRef>> marked = new SimpleObjectProperty<>(this, "marked", Set.of());
    private final Tooltip tooltip = new Tooltip();
    private Function<TileRef, String> describe = t -> "q-block " + t.qBlock() + ", kv-block " + t.kvBlock();
    private Consumer<TileRef> onOpen = t -> {};
    private Consumer<List<TileRef>> onStroke = s -> {};

    private final StyleableObjectProperty<Color> emptyColor = StyleableColours.property(this, "emptyColor", Color.web("#f4f4f2"), EMPTY_CSS);
    private final StyleableObjectProperty<Color> partialColor = StyleableColours.property(this, "partialColor", Color.web("#e69f00"), PARTIAL_CSS);
    private final StyleableObjectProperty<Color> fullColor = StyleableColours.property(this, "fullColor", Color.web("#0072b2"), FULL_CSS);
    private final StyleableObjectProperty<Color> outsideColor = StyleableColours.property(this, "outsideColor", Color.web("#d0d0d0"), OUTSIDE_CSS);
    private final StyleableObjectProperty<Color> lineColor = StyleableColours.property(this, "lineColor", Color.web("#ffffff80"), LINE_CSS);
    private final StyleableObjectProperty<Color> markColor = StyleableColours.property(this, "markColor", Color.web("#cc79a7"), MARK_CSS);

    private GridRaster raster;
    private WritableImage image;
    private int[] pixels;
    private boolean dirty = true;
    private boolean autoFit = true;
    private double lastRenderMs;
    private double pressX;
    private double pressY;
    private double dragX;
    private double dragY;
    private boolean moved;
    /** Whether the grid had the focus when the button went down: the click that gives it focus opens nothing. */
    private boolean focusedAtPress;
    private final Set<TileRef> stroke = new LinkedHashSet<>();
    /** Runs after each redraw (the minimap follows the view and its colours). */
    Runnable afterRedraw = () -> {};

    public TileGridView() {
        getStyleClass().add("tile-grid");
        getChildren().add(canvas);
        setMinSize(100, 100);
        setFocusTraversable(true);
        tooltip.getStyleClass().add("tile-tooltip");
        grid.addListener((obs, old, now) -> {
            if (now != null && (old == null || old.numQBlocks() != now.numQBlocks() || old.numKvBlocks() != now.numKvBlocks())) {
                autoFit = true;
            }
            invalidate();
        });
        marked.addListener(o -> invalidate());
        for (StyleableObjectProperty<Color> c : List.of(emptyColor, partialColor, fullColor, outsideColor, lineColor, markColor)) {
            c.addListener(o -> invalidate());
        }
        addEventHandler(ScrollEvent.SCROLL, this::onScroll);
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, this::onPressed);
        canvas.addEventHandler(MouseEvent.MOUSE_DRAGGED, this::onDragged);
        canvas.addEventHandler(MouseEvent.MOUSE_RELEASED, this::onReleased);
        canvas.addEventHandler(MouseEvent.MOUSE_MOVED, this::onMoved);
        canvas.addEventHandler(MouseEvent.MOUSE_EXITED, e -> {
            hovered.set(null);
            tooltip.hide();
        });
    }

    public ObjectProperty<TileGrid> gridProperty() {
        return grid;
    }

    public ReadOnlyObjectProperty<Viewport> viewportProperty() {
        return viewport.getReadOnlyProperty();
    }

    /** The tiles in view, clipped to the grid. */
    public ReadOnlyObjectProperty<VisibleRange> visibleRangeProperty() {
        return visibleRange.getReadOnlyProperty();
    }

    /** Whether the view shows any PARTIAL or FULL tile (false: the pattern is elsewhere, or there is none). */
    public javafx.beans.property.ReadOnlyBooleanProperty showsAttendedProperty() {
        return showsAttended.getReadOnlyProperty();
    }

    /** The tile under the pointer, or null. */
    public ReadOnlyObjectProperty<TileRef> hoveredProperty() {
        return hovered.getReadOnlyProperty();
    }

    /** While on, a drag collects tiles into a stroke instead of panning. */
    public BooleanProperty brushProperty() {
        return brush;
    }

    /** Tiles outlined on top of the grid (e.g. the tiles an export computes needlessly). */
    public ObjectProperty<Set<TileRef>> markedProperty() {
        return marked;
    }

    public Tooltip tooltip() {
        return tooltip;
    }

    public void setDescribe(Function<TileRef, String> describe) {
        this.describe = describe;
    }

    public void setOnOpen(Consumer<TileRef> onOpen) {
        this.onOpen = onOpen;
    }

    public void setOnStroke(Consumer<List<TileRef>> onStroke) {
        this.onStroke = onStroke;
    }

    /** ARGB of EMPTY, PARTIAL, FULL and the outside, as the stylesheet set them. */
    public int[] classColors() {
        return new int[] {argb(emptyColor.get()), argb(partialColor.get()), argb(fullColor.get()), argb(outsideColor.get())};
    }

    /** Milliseconds the last redraw took (raster and overlay). */
    public double lastRenderMillis() {
        return lastRenderMs;
    }

    public void fit() {
        autoFit = true;
        invalidate();
    }

    /** Zooms by {@code factor} around the centre of the view. */
    public void zoom(double factor) {
        zoomAround(factor, getWidth() / 2, getHeight() / 2);
    }

    /** Makes the view show these tiles (as far as the aspect ratio allows). */
    public void show(VisibleRange r) {
        if (r.qTo() <= r.qFrom() || r.kvTo() <= r.kvFrom()) {
            return;
        }
        Viewport v = Viewport.fit(r.qTo() - r.qFrom(), r.kvTo() - r.kvFrom(), getWidth(), getHeight());
        setViewport(new Viewport(v.x0() + r.kvFrom(), v.y0() + r.qFrom(), v.scale()));
    }

    /** Centres the view on grid position (kv, q) in tiles, keeping the zoom. */
    public void centreOn(double kv, double q) {
        Viewport v = viewport.get();
        setViewport(new Viewport(kv - getWidth() / 2 / v.scale(), q - getHeight() / 2 / v.scale(), v.scale()));
    }

    /**
     * Centres the view, at its zoom, on the attended (PARTIAL or FULL) tile nearest the view's centre; does nothing
     * when the grid has none. Returns the tile, or null.
     */
    public TileRef goToPattern() {
        TileGrid g = grid.get();
        if (g == null) {
            return null;
        }
        Viewport v = viewport.get();
        TileRef t = nearestAttended(g, v.gridY(getHeight() / 2), v.gridX(getWidth() / 2));
        if (t != null) {
            centreOn(t.kvBlock() + 0.5, t.qBlock() + 0.5);
        }
        return t;
    }

    /** The attended tile nearest grid point (q, kv), by Euclidean distance between tile centres; null if none. */
    static TileRef nearestAttended(TileGrid g, double q, double kv) {
        TileRef best = null;
        double bestD = Double.POSITIVE_INFINITY;
        for (int qb = 0; qb < g.numQBlocks(); qb++) {
            double dq = qb + 0.5 - q;
            if (dq * dq >= bestD) {
                continue;
            }
            int runs = g.runCount(qb);
            for (int run = 0; run < runs; run++) {
                if (g.runClass(qb, run) == saw.engine.mask.TileClass.EMPTY) {
                    continue;
                }
                // the run's tile whose centre is nearest kv
                int k = (int) Math.max(g.runStart(qb, run), Math.min(g.runEnd(qb, run) - 1, Math.floor(kv)));
                double dk = k + 0.5 - kv;
                double d = dq * dq + dk * dk;
                if (d < bestD) {
                    bestD = d;
                    best = new TileRef(qb, k);
                }
            }
        }
        return best;
    }

    /** The tile under a point of this view, or null outside the grid. */
    public TileRef tileAt(double x, double y) {
        TileGrid g = grid.get();
        if (g == null) {
            return null;
        }
        Viewport v = viewport.get();
        int kb = (int) Math.floor(v.gridX(x));
        int qb = (int) Math.floor(v.gridY(y));
        return qb >= 0 && kb >= 0 && qb < g.numQBlocks() && kb < g.numKvBlocks() ? new TileRef(qb, kb) : null;
    }

    /** The centre of a tile in this view's coordinates. */
    public javafx.geometry.Point2D tileCentre(TileRef t) {
        Viewport v = viewport.get();
        return new javafx.geometry.Point2D(v.pixelX(t.kvBlock() + 0.5), v.pixelY(t.qBlock() + 0.5));
    }

    private void zoomAround(double factor, double px, double py) {
        TileGrid g = grid.get();
        if (g == null) {
            return;
        }
        double fitScale = Viewport.fit(g.numQBlocks(), g.numKvBlocks(), getWidth(), getHeight()).scale();
        setViewport(viewport.get().zoom(factor, px, py, fitScale / 2));
    }

    private void setViewport(Viewport v) {
        autoFit = false;
        viewport.set(v);
        invalidate();
    }

    private void invalidate() {
        dirty = true;
        requestLayout();
    }

    @Override
    protected void layoutChildren() {
        double w = Math.floor(getWidth());
        double h = Math.floor(getHeight());
        if (canvas.getWidth() != w || canvas.getHeight() != h) {
            canvas.setWidth(w);
            canvas.setHeight(h);
            dirty = true;
        }
        if (dirty) {
            dirty = false;
            redraw();
        }
    }

    private void redraw() {
        long t0 = System.nanoTime();
        int w = (int) canvas.getWidth();
        int h = (int) canvas.getHeight();
        GraphicsContext gc = canvas.getGraphicsContext2D();
        TileGrid g = grid.get();
        if (w <= 0 || h <= 0) {
            return;
        }
        if (g == null) {
            gc.setFill(outsideColor.get());
            gc.fillRect(0, 0, w, h);
            showsAttended.set(true);
            return;
        }
        if (autoFit) {
            viewport.set(Viewport.fit(g.numQBlocks(), g.numKvBlocks(), w, h));
        }
        Viewport v = viewport.get();
        visibleRange.set(VisibleRange.of(v, w, h, g.numQBlocks(), g.numKvBlocks()));
        if (raster == null || raster.width() != w || raster.height() != h) {
            raster = new GridRaster(w, h);
            image = new WritableImage(w, h);
            pixels = new int[w * h];
        }
        raster.render(g, v, classColors(), pixels);
        showsAttended.set(raster.drewAttended());
        image.getPixelWriter().setPixels(0, 0, w, h, PixelFormat.getIntArgbPreInstance(), IntBuffer.wrap(pixels), w);
        gc.drawImage(image, 0, 0);
        drawLines(gc, v, g, w, h);
        drawTiles(gc, v, marked.get(), markColor.get(), false);
        drawTiles(gc, v, stroke, markColor.get(), true);
        lastRenderMs = (System.nanoTime() - t0) / 1e6;
        afterRedraw.run();
    }

    private void drawLines(GraphicsContext gc, Viewport v, TileGrid g, int w, int h) {
        if (v.scale() < 8) {
            return;
        }
        VisibleRange r = visibleRange.get();
        gc.setStroke(lineColor.get());
        gc.setLineWidth(1);
        double top = Math.max(0, v.pixelY(0));
        double bottom = Math.min(h, v.pixelY(g.numQBlocks()));
        double left = Math.max(0, v.pixelX(0));
        double right = Math.min(w, v.pixelX(g.numKvBlocks()));
        for (int k = r.kvFrom(); k <= r.kvTo(); k++) {
            double x = Math.floor(v.pixelX(k)) + 0.5;
            gc.strokeLine(x, top, x, bottom);
        }
        for (int q = r.qFrom(); q <= r.qTo(); q++) {
            double y = Math.floor(v.pixelY(q)) + 0.5;
            gc.strokeLine(left, y, right, y);
        }
    }

    private void drawTiles(GraphicsContext gc, Viewport v, Set<TileRef> tiles, Color c, boolean fill) {
        if (tiles.isEmpty()) {
            return;
        }
        VisibleRange r = visibleRange.get();
        double s = Math.max(v.scale(), 1);
        gc.setStroke(c);
        gc.setFill(c.deriveColor(0, 1, 1, 0.55));
        gc.setLineWidth(Math.min(2, Math.max(1, v.scale() / 8)));
        for (TileRef t : tiles) {
            if (t.qBlock() >= r.qFrom() && t.qBlock() < r.qTo() && t.kvBlock() >= r.kvFrom() && t.kvBlock() < r.kvTo()) {
                double x = v.pixelX(t.kvBlock());
                double y = v.pixelY(t.qBlock());
                if (fill) {
                    gc.fillRect(x, y, s, s);
                } else {
                    gc.strokeRect(x + 0.5, y + 0.5, Math.max(1, s - 1), Math.max(1, s - 1));
                }
            }
        }
    }

    private void onScroll(ScrollEvent e) {
        // a wheel notch is 3 lines (40 px) on most platforms; Monocle's robot sends one line per event
        double notches = e.getTextDeltaYUnits() == ScrollEvent.VerticalTextScrollUnits.LINES ? e.getTextDeltaY() / 3
                : e.getDeltaY() / 40;
        if (notches != 0) {
            zoomAround(Math.pow(1.25, notches), e.getX(), e.getY());
            e.consume();
        }
    }

    private void onPressed(MouseEvent e) {
        // the scene's focus owner, not isFocused(): a tooltip's popup may hold the window focus for a moment
        focusedAtPress = getScene() != null && getScene().getFocusOwner() == this;
        requestFocus();
        // the press is the grid's: passed on, the tab pane around it would take the focus back
        e.consume();
        pressX = dragX = e.getX();
        pressY = dragY = e.getY();
        moved = false;
        tooltip.hide();
        if (brush.get() && e.getButton() == MouseButton.PRIMARY) {
            stroke.clear();
            addToStroke(e);
        }
    }

    private void onDragged(MouseEvent e) {
        if (Math.hypot(e.getX() - pressX, e.getY() - pressY) > CLICK_SLOP) {
            moved = true;
        }
        if (brush.get() && e.isPrimaryButtonDown()) {
            addToStroke(e);
        } else {
            setViewport(viewport.get().pan(e.getX() - dragX, e.getY() - dragY));
        }
        dragX = e.getX();
        dragY = e.getY();
    }

    private void onReleased(MouseEvent e) {
        if (brush.get() && e.getButton() == MouseButton.PRIMARY) {
            List<TileRef> done = new ArrayList<>(stroke);
            stroke.clear();
            invalidate();
            if (!done.isEmpty()) {
                onStroke.accept(Collections.unmodifiableList(done));
            }
            return;
        }
        if (!moved && focusedAtPress && e.getButton() == MouseButton.PRIMARY) {
            TileRef t = tileAt(e.getX(), e.getY());
            if (t != null) {
                onOpen.accept(t);
            }
        }
    }

    private void addToStroke(MouseEvent e) {
        TileRef t = tileAt(e.getX(), e.getY());
        if (t != null && stroke.add(t)) {
            invalidate();
        }
    }

    private void onMoved(MouseEvent e) {
        TileRef t = tileAt(e.getX(), e.getY());
        if (t == null) {
            hovered.set(null);
            tooltip.hide();
            return;
        }
        if (!t.equals(hovered.get())) {
            hovered.set(t);
            tooltip.setText(describe.apply(t));
        }
        if (getScene() != null && getScene().getWindow() != null) {
            tooltip.show(canvas, e.getScreenX() + 14, e.getScreenY() + 14);
        }
    }

    private static int argb(Color c) {
        return ((int) Math.round(c.getOpacity() * 255) << 24) | ((int) Math.round(c.getRed() * 255) << 16)
                | ((int) Math.round(c.getGreen() * 255) << 8) | (int) Math.round(c.getBlue() * 255);
    }

    // ---- stylesheet colours ----

    private static final CssMetaData<TileGridView, Color> EMPTY_CSS = StyleableColours.meta("-saw-empty-color", Color.web("#f4f4f2"), v -> v.emptyColor);
    private static final CssMetaData<TileGridView, Color> PARTIAL_CSS = StyleableColours.meta("-saw-partial-color", Color.web("#e69f00"), v -> v.partialColor);
    private static final CssMetaData<TileGridView, Color> FULL_CSS = StyleableColours.meta("-saw-full-color", Color.web("#0072b2"), v -> v.fullColor);
    private static final CssMetaData<TileGridView, Color> OUTSIDE_CSS = StyleableColours.meta("-saw-outside-color", Color.web("#d0d0d0"), v -> v.outsideColor);
    private static final CssMetaData<TileGridView, Color> LINE_CSS = StyleableColours.meta("-saw-line-color", Color.web("#ffffff80"), v -> v.lineColor);
    private static final CssMetaData<TileGridView, Color> MARK_CSS = StyleableColours.meta("-saw-mark-color", Color.web("#cc79a7"), v -> v.markColor);
    private static final List<CssMetaData<? extends Styleable, ?>> CSS;

    static {
        List<CssMetaData<? extends Styleable, ?>> all = new ArrayList<>(Region.getClassCssMetaData());
        all.addAll(List.of(EMPTY_CSS, PARTIAL_CSS, FULL_CSS, OUTSIDE_CSS, LINE_CSS, MARK_CSS));
        CSS = Collections.unmodifiableList(all);
    }

    public static List<CssMetaData<? extends Styleable, ?>> getClassCssMetaData() {
        return CSS;
    }

    @Override
    public List<CssMetaData<? extends Styleable, ?>> getCssMetaData() {
        return CSS;
    }
}
