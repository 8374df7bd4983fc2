package saw.ui.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.concurrent.Task;
import org.jfree.chart.JFreeChart;
import saw.engine.bench.ResultsCsv;
import saw.engine.bench.ResultsFile;
import saw.ui.chart.BenchCharts;
import saw.ui.chart.ChartFiles;
import saw.ui.chart.ChartKind;
import saw.ui.chart.ChartOptions;
import saw.ui.chart.Metric;

/**
 * The charts view's view-model: the current run's rows and any number of results files, overlaid in one chart
 * (built by {@link BenchCharts}) that is rebuilt whenever a row arrives or an option changes.
 */
public final class ChartsModel {
    private final RunModel run;
    private final Executor executor;
    private final ObservableList<ResultsFile> files = FXCollections.observableArrayList();
    private final BooleanProperty includeRun = new SimpleBooleanProperty(this, "includeRun", true);
    private final ObjectProperty<ChartKind> kind = new SimpleObjectProperty<>(this, "kind", ChartKind.DENSITY);
    private final ObjectProperty<Metric> metric = new SimpleObjectProperty<>(this, "metric", Metric.USEFUL_TFLOPS);
    private final BooleanProperty logScale = new SimpleBooleanProperty(this, "logScale");
    private final ReadOnlyObjectWrapper<JFreeChart> chart = new ReadOnlyObjectWrapper<>(this, "chart");
    private final ReadOnlyStringWrapper note = new ReadOnlyStringWrapper(this, "note", "");

    public ChartsModel(RunModel run, Executor executor) {
        this.run = run;
        this.executor = executor;
        run.rows().addListener((javafx.collections.ListChangeListener<Object>) c -> rebuild());
        files.addListener((javafx.collections.ListChangeListener<Object>) c -> rebuild());
        includeRun.addListener(o -> rebuild());
        kind.addListener(o -> rebuild());
        metric.addListener(o -> rebuild());
        logScale.addListener(o -> rebuild());
        rebuild();
    }

    public ObservableList<ResultsFile> files() {
        return files;
    }

    public BooleanProperty includeRunProperty() {
        return includeRun;
    }

    public ObjectProperty<ChartKind> kindProperty() {
        return kind;
    }

    public ObjectProperty<Metric> metricProperty() {
        return metric;
    }

    public BooleanProperty logScaleProperty() {
        return logScale;
    }

    /** The chart, or null when there is nothing to draw (then {@link #noteProperty()} says why). */
    public ReadOnlyObjectProperty<JFreeChart> chartProperty() {
        return chart.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty noteProperty() {
        return note.getReadOnlyProperty();
    }

    /** Reads a results file on a worker and overlays it; reports what went wrong otherwise. */
    public void addFile(Path p, Consumer<String> onError) {
        Task<ResultsFile> t = new Task<>() {
            @Override
            protected ResultsFile call() throws Exception {
                return ResultsFile.read(p);
            }
        };
        t.setOnSucceeded(e -> {
            files.add(t.getValue());
            t.getValue().truncation().ifPresent(w -> onError.accept(p + ": " + w));
        });
        t.setOnFailed(e -> onError.accept(String.valueOf(t.getException().getMessage())));
        executor.execute(t);
    }

    /** Writes the chart (PNG or SVG by the file's extension) on a worker. */
    public void export(Path p, Runnable done, Consumer<String> onError) {
        JFreeChart c = chart.get();
        if (c == null) {
            onError.accept("There is no chart to export yet.");
            return;
        }
        work(() -> ChartFiles.write(c, p, ChartFiles.DEFAULT_WIDTH, ChartFiles.DEFAULT_HEIGHT), done, onError);
    }

    /** Writes the current run's rows as CSV on a worker. */
    public void exportCsv(Path p, Runnable done, Consumer<String> onError) {
        List<saw.engine.bench.BenchRow> rows = List.copyOf(run.rows());
        work(() -> ResultsCsv.write(p, rows), done, onError);
    }

    private interface IoWork {
        void run() throws Exception;
    }

    private void work(IoWork w, Runnable done, Consumer<String> onError) {
        Task<Void> t = new Task<>() {
            @Override
            protected Void call() throws Exception {
                w.run();
                return null;
            }
        };
        t.setOnSucceeded(e -> done.run());
        t.setOnFailed(e -> onError.accept(String.valueOf(t.getException().getMessage())));
        executor.execute(t);
    }

    private void rebuild() {
        List<ResultsFile> sources = new ArrayList<>();
        if (includeRun.get() && !run.rows().isEmpty()) {
            sources.add(run.results());
        }
        sources.addAll(files);
        if (sources.isEmpty()) {
            chart.set(null);
            note.set("Run a sweep or add results files to chart them.");
            return;
        }
        try {
            chart.set(BenchCharts.build(sources, new ChartOptions(kind.get(), metric.get(), logScale.get())));
            note.set("");
        } catch (IllegalArgumentException e) {
            chart.set(null);
            note.set(e.getMessage());
        }
    }
}
