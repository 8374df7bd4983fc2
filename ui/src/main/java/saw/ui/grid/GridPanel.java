package saw.ui.grid;

import java.util.Locale;
import javafx.beans.binding.Bindings;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Region;
import saw.engine.mask.TileGrid;
import java.util.HashSet;
import java.util.Set;
import saw.ui.model.FormatsModel;
import saw.ui.model.LayoutModel;
import saw.ui.model.TileInfo;

/**
 * The centre of the window: the tile grid of the shown batch entry and head, its tools (fit, zoom, brush, extra
 * tiles of the interval export), the legend and a line saying what is in view.
 */
public final class GridPanel extends BorderPane {
    /** Extra tiles outlined at most; more would make every redraw slow. */
    private static final int MAX_MARKS = 200_000;
    private final TileGridView view = new TileGridView();
    private final ToggleButton brush = new ToggleButton("Brush");
    private final ToggleButton extra = new ToggleButton("Extra tiles (ejkernel)");
    private final Button exportPng = new Button("Export PNG\u2026");
    private final Label range = new Label();

    public GridPanel(LayoutModel layout, FormatsModel formats) {
        getStyleClass().add("grid-panel");
        view.setId("tile-grid");
        view.gridProperty().bind(Bindings.createObjectBinding(() -> {
            LayoutModel.Compiled c = layout.compiledProperty().get();
            int v = layout.variantProperty().get();
            return c == null ? null : gridOf(c, v);
        }, layout.compiledProperty(), layout.variantProperty()));
        view.setDescribe(t -> {
            TileInfo info = layout.describe(t.qBlock(), t.kvBlock());
            return info == null ? "" : info.text();
        });

        Button fit = new Button("Fit");
        fit.setId("fit");
        fit.setTooltip(new Tooltip("Show the whole grid (F)"));
        fit.setOnAction(e -> view.fit());
        Button zoomIn = new Button("+");
        zoomIn.setId("zoom-in");
        zoomIn.setOnAction(e -> view.zoom(2));
        Button zoomOut = new Button("\u2212");
        zoomOut.setId("zoom-out");
        zoomOut.setOnAction(e -> view.zoom(0.5));
        brush.setId("brush");
        brush.setTooltip(new Tooltip("Toggle tiles of the selected painted node by dragging over the grid (B)"));
        view.brushProperty().bind(brush.selectedProperty());
        extra.setId("show-extra");
        extra.setTooltip(new Tooltip("Outline the EMPTY tiles that the ejkernel intervals make a kernel compute"));
        exportPng.setId("export-png");
        range.setId("visible-range");
        range.getStyleClass().add("muted");
        ToolBar tools = new ToolBar(fit, zoomIn, zoomOut, brush, extra, exportPng);
        setTop(tools);
        Minimap minimap = new Minimap(view);
        view.afterRedraw = minimap::redraw;
        minimap.visibleProperty().bind(Bindings.createBooleanBinding(() -> {
            TileGrid g = view.gridProperty().get();
            VisibleRange r = view.visibleRangeProperty().get();
            return g != null && (r.qFrom() > 0 || r.kvFrom() > 0 || r.qTo() < g.numQBlocks() || r.kvTo() < g.numKvBlocks());
        }, view.gridProperty(), view.visibleRangeProperty()));
        Button goTo = new Button("Go to pattern");
        goTo.setId("go-to-pattern");
        goTo.setTooltip(new Tooltip("Nothing attends in this view: centre it on the nearest PARTIAL or FULL tile"));
        goTo.setOnAction(e -> view.goToPattern());
        goTo.visibleProperty().bind(view.showsAttendedProperty().not());
        javafx.scene.layout.StackPane centre = new javafx.scene.layout.StackPane(view, minimap, goTo);
        javafx.scene.layout.StackPane.setAlignment(minimap, javafx.geometry.Pos.BOTTOM_RIGHT);
        javafx.scene.layout.StackPane.setMargin(minimap, new javafx.geometry.Insets(8));
        javafx.scene.layout.StackPane.setAlignment(goTo, javafx.geometry.Pos.TOP_CENTER);
        javafx.scene.layout.StackPane.setMargin(goTo, new javafx.geometry.Insets(12));
        centre.setMinSize(0, 0);
        setCenter(centre);
        Legend legend = new Legend(extra.selectedProperty(), brush.selectedProperty());
        // the in-view line goes under the legend and wraps when the panel is narrow
        range.setWrapText(true);
        range.setMinHeight(Region.USE_PREF_SIZE);
        javafx.scene.layout.VBox status = new javafx.scene.layout.VBox(2, legend, range);
        status.getStyleClass().add("status-bar");
        setBottom(status);

        Runnable marks = () -> {
            FormatsModel.Report r = formats.reportProperty().get();
            TileGrid g = view.gridProperty().get();
            if (!extra.isSelected() || r == null || g == null || r.of() != layout.compiled()) {
                view.markedProperty().set(Set.of());
                return;
            }
            Set<TileRef> tiles = new HashSet<>();
            for (int[] t : FormatsModel.extraTiles(r.intervals(), layout.batchProperty().get(), g, MAX_MARKS)) {
                tiles.add(new TileRef(t[0], t[1]));
            }
            view.markedProperty().set(tiles);
        };
        extra.selectedProperty().addListener(o -> marks.run());
        formats.reportProperty().addListener(o -> marks.run());
        view.gridProperty().addListener(o -> marks.run());
        view.visibleRangeProperty().addListener(o -> updateRange(layout));
        view.hoveredProperty().addListener(o -> updateRange(layout));
    }

    private static TileGrid gridOf(LayoutModel.Compiled c, int variant) {
        return variant < c.layout().variantCount() ? c.layout().grid(variant) : c.layout().grid(0);
    }

    private void updateRange(LayoutModel layout) {
        LayoutModel.Compiled c = layout.compiled();
        if (c == null) {
            range.setText("");
            return;
        }
        VisibleRange r = view.visibleRangeProperty().get();
        var lay = c.layout();
        String text = String.format(Locale.ROOT, "In view: q-blocks %d-%d (tokens %d-%d), kv-blocks %d-%d (tokens %d-%d), %.3g px/tile",
                r.qFrom(), Math.max(r.qFrom(), r.qTo() - 1), lay.qStart(Math.min(r.qFrom(), lay.numQBlocks() - 1)),
                r.qTo() == 0 ? 0 : lay.qEnd(r.qTo() - 1) - 1,
                r.kvFrom(), Math.max(r.kvFrom(), r.kvTo() - 1), lay.kvStart(Math.min(r.kvFrom(), lay.numKvBlocks() - 1)),
                r.kvTo() == 0 ? 0 : lay.kvEnd(r.kvTo() - 1) - 1, view.viewportProperty().get().scale());
        range.setText(text);
    }

    public TileGridView view() {
        return view;
    }

    public ToggleButton brushButton() {
        return brush;
    }

    public ToggleButton extraTilesButton() {
        return extra;
    }

    public Button exportPngButton() {
        return exportPng;
    }
}
