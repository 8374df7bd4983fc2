package saw.ui.ring;

import java.util.Locale;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.Slider;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.image.ImageView;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.Text;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.jfree.chart.fx.ChartViewer;
import saw.engine.ring.RingPlan;
import saw.engine.ring.RingScheme;
import saw.ui.chart.RingCharts;

/**
 * The Ring view: the tile grid coloured by the device that owns each tile's queries (bright: computed at the chosen
 * step), a step slider, the per-device load, and the split schemes compared for the current mask.
 */
public final class RingView extends BorderPane {
    static final int PICTURE = 512;
    private final RingViewModel model;
    private final ImageView picture = new ImageView();
    private final ChartViewer loads = new ChartViewer();
    private final Label summary = new Label();

    public RingView(RingViewModel model) {
        this.model = model;
        setId("ring-panel");
        Spinner<Integer> devices = new Spinner<>();
        devices.setId("ring-devices");
        devices.setEditable(true);
        devices.setValueFactory(new SpinnerValueFactory.IntegerSpinnerValueFactory(2, 1024, model.devicesProperty().get()));
        devices.getValueFactory().valueProperty().addListener((o, a, b) -> {
            if (b != null) {
                model.devicesProperty().set(b);
            }
        });
        ChoiceBox<RingScheme> scheme = new ChoiceBox<>();
        scheme.setId("ring-scheme");
        scheme.getItems().addAll(RingScheme.values());
        scheme.valueProperty().bindBidirectional(model.schemeProperty());
        Slider step = new Slider(0, 1, 0);
        step.setId("ring-step");
        step.setMajorTickUnit(1);
        step.setMinorTickCount(0);
        step.setSnapToTicks(true);
        step.setShowTickMarks(true);
        step.setPrefWidth(240);
        step.valueProperty().addListener((o, a, b) -> model.stepProperty().set((int) Math.round(b.doubleValue())));
        Label stepLabel = new Label();
        stepLabel.textProperty().bind(Bindings.concat("step ", model.stepProperty()));
        // a flow, not a ToolBar: at narrow widths the step slider wraps to a second line instead of hiding behind ">>"
        FlowPane bar = new FlowPane(6, 4, new Label("Devices"), devices, new Label("Scheme"), scheme, stepLabel, step);
        bar.getStyleClass().add("chart-tools");
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.getChildren().forEach(n -> ((Control) n).setMinWidth(Region.USE_PREF_SIZE));
        setTop(new VBox(bar, summary));
        summary.setId("ring-summary");
        summary.setPadding(new Insets(2, 8, 2, 8));
        // the summary is one long sentence: it wraps rather than losing its end
        summary.setWrapText(true);
        summary.setMinHeight(Region.USE_PREF_SIZE);

        picture.setId("ring-grid");
        picture.setPreserveRatio(true);
        picture.setSmooth(false);
        StackPane gridPane = new StackPane(picture);
        picture.fitWidthProperty().bind(gridPane.widthProperty().subtract(8));
        picture.fitHeightProperty().bind(gridPane.heightProperty().subtract(8));
        gridPane.setMinSize(100, 100);

        TableView<RingPlan> table = comparisonTable();
        loads.setId("ring-loads");
        // the grid and the loads side by side; the scheme comparison under both, as wide as the tab, so its six
        // columns keep their headers' words
        SplitPane pictures = new SplitPane(gridPane, loads);
        SplitPane centre = new SplitPane(pictures, table);
        centre.setOrientation(Orientation.VERTICAL);
        centre.setDividerPositions(0.64); // room for a row per scheme at the default window size
        SplitPane.setResizableWithParent(table, false);
        setCenter(centre);

        Label failure = new Label();
        failure.setId("ring-failure");
        failure.getStyleClass().add("ring-failure");
        failure.textProperty().bind(model.failureProperty());
        setBottom(failure);

        model.planProperty().addListener((o, a, p) -> {
            if (p != null) {
                step.setMax(p.devices() - 1);
            }
            redraw();
        });
        model.stepProperty().addListener((o, a, b) -> {
            step.setValue(b.intValue());
            redraw();
        });
        redraw();
    }

    private TableView<RingPlan> comparisonTable() {
        TableView<RingPlan> t = new TableView<>(model.comparison());
        t.setId("ring-comparison");
        t.getColumns().add(column("scheme", p -> p.scheme().label()));
        t.getColumns().add(column("imbalance", p -> percent(p.imbalance())));
        t.getColumns().add(column("idle", p -> percent(p.predicted().idleFraction())));
        t.getColumns().add(column("predicted ms", p -> String.format(Locale.ROOT, "%.3f", p.predicted().wallMs())));
        t.getColumns().add(column("efficiency", p -> percent(p.predicted().efficiency())));
        t.getColumns().add(column("skipped", p -> Integer.toString(p.predicted().skippedSteps())));
        t.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY);
        t.setPlaceholder(new Label("No plan yet"));
        return t;
    }

    private static TableColumn<RingPlan, String> column(String name, java.util.function.Function<RingPlan, String> f) {
        TableColumn<RingPlan, String> c = new TableColumn<>(name);
        // a header never shrinks below its words (as the run panel's results table)
        Text words = new Text(name);
        words.setFont(Font.font(null, FontWeight.BOLD, 14));
        c.setMinWidth(words.getLayoutBounds().getWidth() + 28);
        c.setCellValueFactory(d -> new ReadOnlyStringWrapper(f.apply(d.getValue())));
        c.setSortable(false);
        return c;
    }

    private static String percent(double x) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * x);
    }

    private void redraw() {
        RingPlan p = model.planProperty().get();
        if (p == null) {
            picture.setImage(null);
            loads.setVisible(false); // a ChartViewer takes no null chart
            summary.setText("");
            return;
        }
        int s = Math.min(model.stepProperty().get(), p.devices() - 1);
        int w = Math.min(PICTURE, p.layout().numKvBlocks());
        int h = Math.min(PICTURE, p.layout().numQBlocks());
        WritableImage img = new WritableImage(w, h);
        img.getPixelWriter().setPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), RingRaster.argb(p, 0, s, w, h), 0, w);
        picture.setImage(img);
        loads.setChart(RingCharts.loads(p, s));
        loads.setVisible(true);
        RingPlan.Prediction pr = p.predicted();
        summary.setText(String.format(Locale.ROOT, "%s over %d devices: imbalance %.2f%%, idle %.1f%%, predicted %.3f ms "
                + "(roofline: %.0f TFLOP/s, %.0f GB/s), %d of %d launches skipped; grid shows the first head",
                p.scheme().label(), p.devices(), 100 * p.imbalance(), 100 * pr.idleFraction(), pr.wallMs(), p.model().tflops(),
                p.model().linkGBs(), pr.skippedSteps(), p.devices() * p.devices()));
    }
}
