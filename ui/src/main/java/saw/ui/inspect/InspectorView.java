package saw.ui.inspect;

import java.util.Locale;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;
import saw.ui.model.FormatsModel;
import saw.ui.model.LayoutModel;
import saw.ui.model.LayoutStats;
import saw.ui.model.TileInfo;

/**
 * The right side: what the compiled layout costs. Tile counts summed over batch and heads (and for the head shown
 * when heads differ), token and block density, and forward FLOPs of dense attention, of the tiles a block-sparse
 * kernel visits, and of the pairs that attend.
 */
public final class InspectorView extends VBox {
    private final LayoutModel layout;
    private final GridPane tiles = grid();
    private final GridPane shown = grid();
    private final GridPane density = grid();
    private final GridPane flops = grid();
    private final ComboBox<Integer> headDim = new ComboBox<>();
    private final Label shownTitle = title("Tiles of the head shown");
    private final VBox extra = new VBox(6);
    private final java.util.Map<String, Label> values = new java.util.HashMap<>();

    public InspectorView(LayoutModel layout, FormatsModel formats) {
        this.layout = layout;
        getStyleClass().addAll("side-panel", "inspector");
        setId("inspector");
        setMinWidth(250);
        setPrefWidth(290);
        headDim.getItems().addAll(64, 128, 256);
        headDim.setValue(128);
        headDim.setId("inspector-head-dim");
        headDim.setOnAction(e -> refresh());
        Label flopsTitle = title("Forward FLOPs, head dim");
        getChildren().addAll(title("Tiles (all batch x heads)"), tiles, shownTitle, shown, title("Density"), density,
                new javafx.scene.layout.HBox(6, flopsTitle, headDim), flops, extra);
        layout.compiledProperty().addListener(o -> refresh());
        layout.variantProperty().addListener(o -> refresh());
        GridPane formatRows = grid();
        formatRows.setId("formats");
        Label updating = new Label("updating for the new layout\u2026");
        updating.setId("formats-updating");
        updating.getStyleClass().add("muted");
        extra.getChildren().addAll(title("Export formats"), updating, formatRows);
        // the sizes belong to the layout they were measured on: until the new layout's arrive, say so and grey them
        Runnable stale = () -> {
            FormatsModel.Report r = formats.reportProperty().get();
            boolean old = r == null || r.of() != layout.compiled();
            updating.setVisible(old);
            updating.setManaged(old);
            formatRows.setOpacity(old ? 0.35 : 1);
        };
        formats.reportProperty().addListener(o -> stale.run());
        layout.compiledProperty().addListener(o -> stale.run());
        stale.run();
        formats.reportProperty().addListener((o, old, r) -> {
            formatRows.getChildren().clear();
            int row = 0;
            for (FormatsModel.Summary s : r.summaries()) {
                Label name = new Label(s.format());
                name.getStyleClass().add("field-label");
                Label bytes = new Label((s.measured() ? "" : "\u2248 ") + bytes(s.bytes()));
                bytes.setId("format-bytes-" + s.format());
                bytes.getStyleClass().add("value");
                Label fidelity = new Label(s.fidelity());
                fidelity.setId("format-fidelity-" + s.format());
                fidelity.setWrapText(true);
                fidelity.setMaxWidth(170);
                // a wrapped label is laid out at its one-line height unless told otherwise, and then ends in "..."
                fidelity.setMinHeight(Region.USE_PREF_SIZE);
                formatRows.addRow(row++, name, bytes);
                formatRows.add(fidelity, 1, row++);
            }
        });
        refresh();
    }

    static String bytes(long n) {
        if (n < 10_000) {
            return String.format(Locale.ROOT, "%,d B", n);
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = n / 1000.0;
        int u = 0;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, "%.3g %s", v, units[u]);
    }

    /** A place below the numbers for more sections (export formats). */
    public VBox extraSections() {
        return extra;
    }

    private void refresh() {
        LayoutModel.Compiled c = layout.compiled();
        if (c == null) {
            return;
        }
        LayoutStats s = c.stats();
        TileLayout lay = c.layout();
        row(tiles, 0, "EMPTY", "count-empty", count(s.emptyTiles()));
        row(tiles, 1, "PARTIAL", "count-partial", count(s.partialTiles()));
        row(tiles, 2, "FULL", "count-full", count(s.fullTiles()));
        row(tiles, 3, "total", "count-total", count(s.totalTiles()));
        row(tiles, 4, "grid", "grid-size", lay.numQBlocks() + " x " + lay.numKvBlocks() + " of " + lay.blockQ() + "x" + lay.blockKv());
        row(tiles, 5, "compiled in", "compile-ms", String.format(Locale.ROOT, "%.1f ms", c.compileMillis()));

        boolean varies = lay.variantCount() > 1;
        shownTitle.setVisible(varies);
        shownTitle.setManaged(varies);
        shown.setVisible(varies);
        shown.setManaged(varies);
        if (varies) {
            int v = Math.min(layout.variantProperty().get(), lay.variantCount() - 1);
            TileGrid g = lay.grid(v);
            row(shown, 0, "variant", "shown-variant", (v + 1) + " of " + lay.variantCount());
            row(shown, 1, "EMPTY", "shown-empty", count(g.count(TileClass.EMPTY)));
            row(shown, 2, "PARTIAL", "shown-partial", count(g.count(TileClass.PARTIAL)));
            row(shown, 3, "FULL", "shown-full", count(g.count(TileClass.FULL)));
        }

        row(density, 0, "token", "token-density", TileInfo.percent(s.tokenDensity()));
        row(density, 1, "block", "block-density", TileInfo.percent(s.blockDensity()));
        row(density, 2, "attending pairs", "attended-pairs", count(s.attendedPairs()));

        int d = headDim.getValue() == null ? 128 : headDim.getValue();
        double dense = LayoutStats.forwardFlops(s.densePairs(), d);
        double visited = LayoutStats.forwardFlops(s.visitedPairs(), d);
        double useful = LayoutStats.forwardFlops(s.attendedPairs(), d);
        row(flops, 0, "dense", "flops-dense", flops(dense));
        row(flops, 1, "tiles visited", "flops-visited", flops(visited) + "  (" + TileInfo.percent(visited / dense) + ")");
        row(flops, 2, "pairs attending", "flops-useful", flops(useful) + "  (" + TileInfo.percent(useful / dense) + ")");
        row(flops, 3, "wasted in tiles", "flops-wasted", visited == 0 ? "0" : TileInfo.percent(1 - useful / visited));
    }

    private static GridPane grid() {
        GridPane g = new GridPane();
        g.setHgap(10);
        g.setVgap(2);
        return g;
    }

    private static Label title(String text) {
        Label l = new Label(text);
        l.getStyleClass().add("section-title");
        return l;
    }

    /** Sets a value, making its row the first time (later edits only change text, which is cheap to redraw). */
    private void row(GridPane g, int r, String name, String id, String value) {
        Label v = values.get(id);
        if (v == null) {
            Label n = new Label(name);
            n.getStyleClass().add("field-label");
            v = new Label();
            v.setId(id);
            v.getStyleClass().add("value");
            g.addRow(r, n, v);
            values.put(id, v);
        }
        v.setText(value);
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String flops(double f) {
        String[] units = {"", "K", "M", "G", "T", "P", "E"};
        int u = 0;
        while (f >= 1000 && u < units.length - 1) {
            f /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, "%.3g %sFLOP", f, units[u]);
    }
}
