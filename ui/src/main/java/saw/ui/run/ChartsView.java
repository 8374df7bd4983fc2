package saw.ui.run;

import java.nio.file.Path;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.StackPane;
import org.jfree.chart.fx.ChartViewer;
import saw.ui.chart.ChartKind;
import saw.ui.chart.Metric;
import saw.ui.files.FileAsker;
import saw.ui.model.Messages;

/**
 * The charts: throughput against density, sequence length or tile size (fwd and bwd side by side), the current
 * run and any results files overlaid, log scale, export as PNG, SVG or CSV. Drawn by JFreeChart in a ChartViewer.
 */
public final class ChartsView extends BorderPane {
    private final ChartViewer viewer = new ChartViewer();

    private final javafx.beans.value.ObservableBooleanValue dark;

    /** @param dark whether the window is dark: the chart's background, text and grid lines follow */
    public ChartsView(ChartsModel model, FileAsker asker, Messages messages, java.util.function.Supplier<Path> folder,
                      javafx.beans.value.ObservableBooleanValue dark) {
        this.dark = dark;
        setId("charts-panel");
        viewer.setId("chart-viewer");
        ComboBox<ChartKind> kind = new ComboBox<>();
        kind.getItems().addAll(ChartKind.values());
        kind.setId("chart-kind");
        kind.valueProperty().bindBidirectional(model.kindProperty());
        ComboBox<Metric> metric = new ComboBox<>();
        metric.getItems().addAll(Metric.values());
        metric.setId("chart-metric");
        metric.valueProperty().bindBidirectional(model.metricProperty());
        ToggleButton log = new ToggleButton("log scale");
        log.setId("chart-log");
        log.selectedProperty().bindBidirectional(model.logScaleProperty());
        CheckBox run = new CheckBox("this run");
        run.setId("chart-this-run");
        run.selectedProperty().bindBidirectional(model.includeRunProperty());
        Button add = new Button("Add results file\u2026");
        add.setId("chart-add-file");
        add.setOnAction(e -> {
            Path p = asker.open("Add results file", "json", folder.get());
            if (p != null) {
                model.addFile(p, messages::error);
            }
        });
        Button clear = new Button("Remove files");
        clear.setId("chart-clear-files");
        clear.disableProperty().bind(javafx.beans.binding.Bindings.isEmpty(model.files()));
        clear.setOnAction(e -> model.files().clear());
        Button png = new Button("PNG\u2026");
        png.setOnAction(e -> export(model, asker, messages, folder.get(), "png"));
        Button svg = new Button("SVG\u2026");
        svg.setOnAction(e -> export(model, asker, messages, folder.get(), "svg"));
        Button csv = new Button("CSV\u2026");
        csv.setOnAction(e -> {
            Path p = asker.saveAs("Export the run's rows as CSV", "results.csv", "csv", folder.get());
            if (p != null) {
                model.exportCsv(p, () -> messages.info("Wrote " + p), messages::error);
            }
        });
        // a flow, not a ToolBar: at narrow widths the buttons wrap to a second line instead of hiding behind ">>"
        javafx.scene.layout.FlowPane tools = new javafx.scene.layout.FlowPane(6, 4, new Label("x"), kind, new Label("y"),
                metric, log, run, add, clear, new Label("export"), png, svg, csv);
        tools.getStyleClass().add("chart-tools");
        tools.setAlignment(Pos.CENTER_LEFT);
        tools.getChildren().forEach(n -> ((javafx.scene.control.Control) n).setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE));
        setTop(tools);
        Label note = new Label();
        note.setId("chart-note");
        note.textProperty().bind(model.noteProperty());
        note.getStyleClass().add("muted");
        StackPane centre = new StackPane(viewer, note);
        StackPane.setAlignment(note, Pos.CENTER);
        setCenter(centre);
        model.chartProperty().addListener((o, a, c) -> show(c));
        dark.addListener(o -> show(model.chartProperty().get()));
        show(model.chartProperty().get());
    }

    private void show(org.jfree.chart.JFreeChart c) {
        if (c != null) {
            saw.ui.chart.ChartColours.apply(c, dark.get());
            viewer.setChart(c);
        }
        viewer.setVisible(c != null);
    }

    public ChartViewer viewer() {
        return viewer;
    }

    private static void export(ChartsModel model, FileAsker asker, Messages messages, Path folder, String ext) {
        Path p = asker.saveAs("Export chart as " + ext.toUpperCase(java.util.Locale.ROOT), "chart." + ext, ext, folder);
        if (p != null) {
            model.export(p, () -> messages.info("Wrote " + p), messages::error);
        }
    }
}
