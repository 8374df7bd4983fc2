package saw.ui.run;

import java.util.Locale;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import saw.engine.attention.DType;
import saw.engine.bench.BenchRow;
import saw.ui.model.ComposerModel;

/**
 * The run panel: backend, shapes, dtype, passes, learned sinks, tile sizes and one swept parameter of the open config; Run and
 * Cancel with a progress bar and ETA; the results table filling as rows finish.
 */
public final class RunView extends BorderPane {
    private java.util.function.BiPredicate<String, String> confirm = (title, question) -> true;

    /** Asks before a new run replaces the rows in the table (title, question); without it, runs replace them. */
    public void setConfirm(java.util.function.BiPredicate<String, String> confirm) {
        this.confirm = confirm;
    }

    public RunView(RunModel model, ComposerModel composer) {
        getStyleClass().add("run-panel");
        setId("run-panel");
        model.configProperty().bind(composer.compositionProperty());
        GridPane form = new GridPane();
        form.setHgap(8);
        form.setVgap(4);
        form.setPadding(new Insets(8));

        ComboBox<BackendChoice> backend = new ComboBox<>(model.backends());
        backend.setId("run-backend");
        backend.valueProperty().bindBidirectional(model.backendProperty());
        Label backendNote = new Label();
        backendNote.setId("run-backend-note");
        backendNote.getStyleClass().add("muted");
        backendNote.setWrapText(true);
        backendNote.setMaxWidth(520);
        backendNote.textProperty().bind(Bindings.createStringBinding(() -> model.backendProperty().get() == null
                ? "" : RunModel.inWindowWords(model.backendProperty().get().description()), model.backendProperty()));

        ComboBox<Integer> headDim = new ComboBox<>();
        headDim.getItems().addAll(64, 128, 256);
        headDim.setId("run-head-dim");
        headDim.valueProperty().addListener((o, a, b) -> model.headDimProperty().set(b));
        headDim.setValue(model.headDimProperty().get());
        ComboBox<DType> dtype = new ComboBox<>();
        dtype.getItems().addAll(DType.values());
        dtype.setId("run-dtype");
        dtype.valueProperty().bindBidirectional(model.dtypeProperty());
        CheckBox fwd = new CheckBox("forward");
        fwd.setId("run-fwd");
        fwd.selectedProperty().bindBidirectional(model.forwardProperty());
        CheckBox bwd = new CheckBox("backward");
        bwd.setId("run-bwd");
        bwd.selectedProperty().bindBidirectional(model.backwardProperty());
        CheckBox sinks = new CheckBox("learned sinks");
        sinks.setId("run-sinks");
        sinks.selectedProperty().bindBidirectional(model.sinksProperty());
        sinks.setTooltip(new Tooltip(SINKS_TIP));
        TextField tiles = new TextField();
        tiles.setId("run-tiles");
        tiles.textProperty().bindBidirectional(model.tilesProperty());
        ComboBox<RunModel.Swept> swept = new ComboBox<>();
        swept.setId("run-swept");
        swept.setMinWidth(Region.USE_PREF_SIZE);
        swept.valueProperty().bindBidirectional(model.sweptProperty());
        Runnable refreshSweepable = () -> {
            RunModel.Swept keep = swept.getValue();
            swept.getItems().setAll(RunModel.sweepable(composer.composition()));
            swept.setValue(swept.getItems().contains(keep) ? keep : RunModel.Swept.NONE);
        };
        composer.compositionProperty().addListener(o -> refreshSweepable.run());
        refreshSweepable.run();
        TextField values = new TextField();
        values.setId("run-values");
        values.setPromptText("e.g. 256, 1024, 4096");
        values.setPrefColumnCount(16);
        values.textProperty().bindBidirectional(model.valuesProperty());

        int r = 0;
        form.addRow(r++, new Label("backend"), backend);
        // the backend's description gets a row of its own, under the choice, as wide as the form
        form.add(backendNote, 1, r++, 2, 1);
        form.addRow(r++, new Label("batch, heads, kv heads"), new HBox(4, intField("run-batch", model.batchProperty()),
                intField("run-heads", model.headsProperty()), intField("run-kv-heads", model.kvHeadsProperty()),
                fit(new Label("(0 = the config's)"))));
        form.addRow(r++, new Label("head dim, dtype"), new HBox(4, headDim, dtype));
        form.addRow(r++, new Label("passes"), new HBox(8, fit(fwd), fit(bwd)));
        form.addRow(r++, new Label("softmax"), fit(sinks));
        Label tilesProblem = new Label();
        tilesProblem.setId("run-tiles-error");
        tilesProblem.getStyleClass().add("field-error");
        tilesProblem.textProperty().bind(model.tilesProblemProperty());
        tilesProblem.visibleProperty().bind(model.tilesProblemProperty().isNotEmpty());
        tilesProblem.managedProperty().bind(tilesProblem.visibleProperty());
        tilesProblem.setWrapText(true);
        tilesProblem.setMaxWidth(520);
        model.tilesProblemProperty().addListener((o, a, b) -> {
            tiles.getStyleClass().remove("invalid");
            if (!b.isEmpty()) {
                tiles.getStyleClass().add("invalid");
            }
        });
        form.addRow(r++, new Label("tile sizes"), tiles, tilesProblem);
        form.addRow(r++, new Label("sweep"), swept);
        form.addRow(r++, new Label("values"), values);
        form.addRow(r++, new Label("warm-up, repetitions"), new HBox(4, intField("run-warmup", model.warmupProperty()),
                intField("run-reps", model.repsProperty())));
        r = tuneRows(form, r, model);

        form.getChildren().stream().filter(n -> n instanceof Label && GridPane.getColumnIndex(n) == 0)
                .forEach(n -> ((Label) n).setMinWidth(Region.USE_PREF_SIZE));

        Button run = new Button("Run");
        run.setId("run-start");
        run.setDefaultButton(false);
        run.disableProperty().bind(model.runningProperty().or(model.estimateFitsProperty().not())
                .or(model.tilesProblemProperty().isNotEmpty()));
        run.setOnAction(e -> {
            int kept = model.rows().size();
            if (kept == 0 || confirm.test("Run again", "A new run replaces the " + kept + (kept == 1 ? " row" : " rows")
                    + " in the table (export them as CSV from the Charts tab first to keep them); run again?")) {
                model.run(composer.composition());
            }
        });
        Button cancel = new Button("Cancel");
        cancel.setId("run-cancel");
        cancel.disableProperty().bind(model.runningProperty().not());
        cancel.setOnAction(e -> model.cancel());
        ProgressBar bar = new ProgressBar();
        bar.setId("run-progress");
        bar.setPrefWidth(220);
        bar.progressProperty().bind(model.progressProperty());
        Label status = new Label();
        status.setId("run-status");
        status.textProperty().bind(model.statusProperty());
        model.failedProperty().addListener((o, a, f) -> {
            status.getStyleClass().remove("error");
            if (f) {
                status.getStyleClass().add("error");
            }
        });
        status.getStyleClass().add("run-status");
        Label estimate = new Label();
        estimate.setId("run-estimate");
        estimate.getStyleClass().add("run-estimate");
        estimate.setWrapText(true);
        estimate.textProperty().bind(model.estimateTextProperty());
        model.estimateFitsProperty().addListener((o, a, fits) -> {
            estimate.getStyleClass().remove("error");
            if (!fits) {
                estimate.getStyleClass().add("error");
            }
        });
        estimate.setPadding(new Insets(0, 8, 4, 8));
        // two lines kept whether or not there is an estimate, so Run does not jump as it comes and goes
        estimate.setMinHeight(40);
        // Run and Cancel keep their words; the status wraps instead of losing its ETA
        status.setWrapText(true);
        status.setMinWidth(120);
        HBox actions = new HBox(8, fit(run), fit(cancel), bar, status);
        HBox.setHgrow(status, javafx.scene.layout.Priority.ALWAYS);
        actions.setAlignment(Pos.CENTER_LEFT);
        actions.setPadding(new Insets(0, 8, 8, 8));

        setTop(new VBox(form, estimate, actions));
        setCenter(table(model));
    }

    /** What the learned sinks box does, as its tooltip. */
    static final String SINKS_TIP = "Learned attention-sink logits (softmax_aux, as in gpt-oss): one logit per head added to"
            + " each row's softmax denominator, so a row may give attention to no token; the backward also computes dSink."
            + "\nThe values are random, one fp32 per head in [-2, 4), drawn from the run's seed as saw verify --sinks and"
            + " saw bench --sinks draw them. Each result row records sinks.";

    private static <T extends javafx.scene.control.Control> T fit(T c) {
        c.setMinWidth(Region.USE_PREF_SIZE);
        return c;
    }

    private static TextField intField(String id, IntegerProperty p) {
        TextField f = new TextField(Integer.toString(p.get()));
        f.setId(id);
        f.setPrefColumnCount(4);
        f.setMinWidth(Region.USE_PREF_SIZE);
        p.addListener((o, a, b) -> {
            if (!f.getText().trim().equals(Integer.toString(b.intValue()))) {
                f.setText(Integer.toString(b.intValue()));
            }
        });
        f.textProperty().addListener((o, a, b) -> {
            try {
                p.set(Integer.parseInt(b.trim()));
                f.getStyleClass().remove("invalid");
            } catch (NumberFormatException e) {
                if (!f.getStyleClass().contains("invalid")) {
                    f.getStyleClass().add("invalid");
                }
            }
        });
        return f;
    }

    private static TableView<BenchRow> table(RunModel model) {
        TableView<BenchRow> t = new TableView<>(model.rows());
        t.setId("run-results");
        t.setPlaceholder(new Label("Results appear here as each point finishes."));
        t.getColumns().add(text("#", row -> Integer.toString(row.index())));
        t.getColumns().add(text("config", BenchRow::config));
        t.getColumns().add(text("varied", row -> row.varied().isEmpty() && Double.isNaN(row.density()) ? ""
                : !Double.isNaN(row.density()) ? "density " + row.density() : row.varied().toString()));
        t.getColumns().add(text("seq", row -> Integer.toString(row.problem().seqQ())));
        t.getColumns().add(text("tile", row -> row.tiles().toString()));
        t.getColumns().add(text("pass", row -> row.pass().label()));
        t.getColumns().add(text("sinks", row -> row.sinks() ? "learned" : "off"));
        t.getColumns().add(text("block density", row -> String.format(Locale.ROOT, "%.3f", row.stats().blockDensity())));
        t.getColumns().add(text("median ms", row -> row.ok() ? String.format(Locale.ROOT, "%.3f", row.timing().medianMs()) : ""));
        t.getColumns().add(text("p10-p90 ms", row -> row.ok() ? String.format(Locale.ROOT, "%.3f-%.3f",
                row.timing().p10Ms(), row.timing().p90Ms()) : ""));
        t.getColumns().add(text("useful TFLOP/s", row -> row.ok() ? String.format(Locale.ROOT, "%.4g", row.usefulTflops()) : ""));
        t.getColumns().add(text("computed TFLOP/s", row -> row.ok() ? String.format(Locale.ROOT, "%.4g", row.computedTflops()) : ""));
        t.getColumns().add(text("kernel", BenchRow::kernel));
        t.getColumns().add(text("status", BenchRow::status));
        return t;
    }

    private static TableColumn<BenchRow, String> text(String name, Function<BenchRow, String> value) {
        TableColumn<BenchRow, String> c = new TableColumn<>(name);
        // a header never shrinks below its words (the table scrolls sideways instead)
        javafx.scene.text.Text words = new javafx.scene.text.Text(name);
        words.setFont(javafx.scene.text.Font.font(null, javafx.scene.text.FontWeight.BOLD, 14));
        c.setMinWidth(words.getLayoutBounds().getWidth() + 28);
        c.setCellValueFactory(cell -> new ReadOnlyStringWrapper(value.apply(cell.getValue())));
        c.setSortable(false);
        return c;
    }

    /**
     * The tune cache's choice for this problem on a row of its own (it names both passes, so it wraps), and under it a
     * Tune button with its progress and cancel (TuneModel); returns the next free row of the form.
     */
    private static int tuneRows(GridPane form, int r, RunModel model) {
        TuneModel tune = new TuneModel(java.util.concurrent.Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, "saw-tune");
            t.setDaemon(true);
            return t;
        }), model);
        Label recommended = new Label();
        recommended.setId("run-recommended-tile");
        recommended.setWrapText(true);
        recommended.setMaxWidth(520);
        recommended.textProperty().bind(tune.recommendedProperty());
        Button start = new Button("Tune");
        start.setId("run-tune");
        start.disableProperty().bind(tune.runningProperty());
        start.setOnAction(e -> tune.tune());
        Button stop = new Button("Cancel tune");
        stop.setId("run-tune-cancel");
        stop.disableProperty().bind(tune.runningProperty().not());
        stop.setOnAction(e -> tune.cancel());
        ProgressBar bar = new ProgressBar();
        bar.setId("run-tune-progress");
        bar.setPrefWidth(120);
        bar.setMinWidth(60);
        bar.progressProperty().bind(tune.progressProperty());
        Label status = new Label();
        status.setId("run-tune-status");
        status.setWrapText(true);
        status.setMaxWidth(360);
        status.textProperty().bind(tune.statusProperty());
        // Tune and Cancel tune keep their words; the status wraps beside them
        HBox actions = new HBox(6, fit(start), fit(stop), bar, status);
        actions.setAlignment(Pos.CENTER_LEFT);
        // like the backend's description, the recommendation may use the width of both control columns
        form.add(new Label("recommended tile"), 0, r);
        form.add(recommended, 1, r++, 2, 1);
        form.addRow(r++, new Label("tune"), actions);
        return r;
    }
}
