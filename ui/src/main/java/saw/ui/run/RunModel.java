package saw.ui.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import javafx.application.Platform;
import javafx.beans.Observable;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.concurrent.Task;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.BadSweep;
import saw.engine.bench.BenchEnvironment;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.engine.bench.Sweep;
import saw.engine.bench.SweepPoint;
import saw.engine.bench.SweepRunner;
import saw.engine.bench.Vary;
import saw.engine.config.MaskConfig;
import saw.engine.gpu.GpuBackend;
import saw.engine.guard.Estimate;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;
import saw.ui.remote.RemoteSweep;

/**
 * The run panel's view-model: a sweep of the open config (one swept parameter, tile sizes, passes, shapes) on one
 * backend, run as a {@link Task} on a worker. Rows arrive in {@link #rows()} as they finish; progress, ETA and
 * Cancel are the task's. Cancelling keeps every finished row. Before a run, {@link #estimateProperty()} says what the
 * sweep's largest point needs against what is free, recomputed on a worker whenever a setting or the config changes.
 */
public final class RunModel {
    /** The parameter a sweep varies: nothing, the sequence length, random-block density, or a field of the mask. */
    public record Swept(String label, String pointer) {
        public static final Swept NONE = new Swept("nothing", "");
        public static final Swept SEQ = new Swept("sequence length", "seq");
        public static final Swept DENSITY = new Swept("random-block density (replaces the mask)", "density");

        @Override
        public String toString() {
            return label;
        }
    }

    private final Executor executor;
    private final ObservableList<BackendChoice> backends = FXCollections.observableArrayList();
    private final ObjectProperty<BackendChoice> backend = new SimpleObjectProperty<>(this, "backend");
    private final IntegerProperty batch = new SimpleIntegerProperty(this, "batch", 1);
    private final IntegerProperty heads = new SimpleIntegerProperty(this, "heads", 0);
    private final IntegerProperty kvHeads = new SimpleIntegerProperty(this, "kvHeads", 0);
    private final IntegerProperty headDim = new SimpleIntegerProperty(this, "headDim", 64);
    private final ObjectProperty<DType> dtype = new SimpleObjectProperty<>(this, "dtype", DType.BF16);
    private final BooleanProperty forward = new SimpleBooleanProperty(this, "forward", true);
    private final BooleanProperty backward = new SimpleBooleanProperty(this, "backward", false);
    private final BooleanProperty sinks = new SimpleBooleanProperty(this, "sinks", false);
    private final StringProperty tiles = new SimpleStringProperty(this, "tiles", "64x64, 128x64");
    private final ObjectProperty<Swept> swept = new SimpleObjectProperty<>(this, "swept", Swept.NONE);
    private final StringProperty values = new SimpleStringProperty(this, "values", "");
    private final IntegerProperty warmup = new SimpleIntegerProperty(this, "warmup", 2);
    private final IntegerProperty reps = new SimpleIntegerProperty(this, "reps", 5);
    private final ObservableList<BenchRow> rows = FXCollections.observableArrayList();
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(this, "progress");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ObjectProperty<MaskConfig> config = new SimpleObjectProperty<>(this, "config");
    private final ReadOnlyObjectWrapper<Estimate> estimate = new ReadOnlyObjectWrapper<>(this, "estimate");
    private final ReadOnlyStringWrapper estimateText = new ReadOnlyStringWrapper(this, "estimateText", "");
    private final ReadOnlyBooleanWrapper estimateFits = new ReadOnlyBooleanWrapper(this, "estimateFits", true);
    private final ReadOnlyStringWrapper tilesProblem = new ReadOnlyStringWrapper(this, "tilesProblem", "");
    private boolean estimating;
    private boolean estimatePending;
    private BenchEnvironment environment;
    private Task<SweepRunner.Outcome> task;

    public RunModel(Executor executor) {
        this.executor = executor;
        estimate.addListener((o, a, e) -> {
            estimateText.set(e == null ? "" : e.sentence());
            estimateFits.set(e == null || e.fits());
        });
        for (Observable setting : List.of(config, backend, batch, heads, kvHeads, headDim, dtype, forward,
                backward, tiles, swept, values)) {
            setting.addListener(o -> requestEstimate());
        }
        // a refusal is about the settings as they were: any change makes it stale, so it goes
        for (Observable setting : List.of(config, backend, batch, heads, kvHeads, headDim, dtype, forward,
                backward, sinks, tiles, swept, values, warmup, reps)) {
            setting.addListener(o -> {
                if (failed.get() && !running.get()) {
                    failed.set(false);
                    status.set("");
                }
            });
        }
        tiles.addListener(o -> tilesProblem.set(tilesProblem(tiles.get())));
        tilesProblem.set(tilesProblem(tiles.get()));
    }

    /** The config a sweep would run (the view binds it to the composition); the estimate follows it. */
    public ObjectProperty<MaskConfig> configProperty() {
        return config;
    }

    /**
     * What the largest point of the sweep needs on the chosen backend: on the CPU against the heap free now, on the
     * GPU against the device's memory (its free memory is known only once it is open, and the run checks it then);
     * null when there is nothing to estimate (no config, a sweep that does not parse, a GPU that is not usable).
     */
    public ReadOnlyObjectProperty<Estimate> estimateProperty() {
        return estimate.getReadOnlyProperty();
    }

    /** The estimate's sentence, or "". */
    public ReadOnlyStringProperty estimateTextProperty() {
        return estimateText.getReadOnlyProperty();
    }

    /** False when the estimate says the sweep would not fit: Run is refused. */
    public ReadOnlyBooleanProperty estimateFitsProperty() {
        return estimateFits.getReadOnlyProperty();
    }

    public ObservableList<BackendChoice> backends() {
        return backends;
    }

    public ObjectProperty<BackendChoice> backendProperty() {
        return backend;
    }

    public IntegerProperty batchProperty() {
        return batch;
    }

    /** 0 takes the config's head count. */
    public IntegerProperty headsProperty() {
        return heads;
    }

    /** 0 takes the head count (no grouped-query sharing). */
    public IntegerProperty kvHeadsProperty() {
        return kvHeads;
    }

    public IntegerProperty headDimProperty() {
        return headDim;
    }

    public ObjectProperty<DType> dtypeProperty() {
        return dtype;
    }

    public BooleanProperty forwardProperty() {
        return forward;
    }

    public BooleanProperty backwardProperty() {
        return backward;
    }

    /**
     * Learned sink logits (softmax_aux, as in gpt-oss): every timed pass adds one logit per head to each row's softmax
     * denominator (dSink in the backward), random fp32 values drawn from the run's seed as {@code saw bench --sinks}
     * and {@code saw verify --sinks} draw them. Rows record it.
     */
    public BooleanProperty sinksProperty() {
        return sinks;
    }

    /** Tile sizes as "64x64, 128x64". */
    public StringProperty tilesProperty() {
        return tiles;
    }

    public ObjectProperty<Swept> sweptProperty() {
        return swept;
    }

    /** The swept values as "256, 1024, 4096". */
    public StringProperty valuesProperty() {
        return values;
    }

    public IntegerProperty warmupProperty() {
        return warmup;
    }

    public IntegerProperty repsProperty() {
        return reps;
    }

    public ObservableList<BenchRow> rows() {
        return rows;
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    /** What the sweep is doing, with the ETA; or why it could not start. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** True when the status is an error. */
    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** The rows so far as a results file, for the charts. */
    public ResultsFile results() {
        BenchEnvironment env = environment != null ? environment : BenchEnvironment.here("", "", "saw window");
        return new ResultsFile("this run", env, List.copyOf(rows), java.util.Optional.empty());
    }

    /** The numeric fields of a config's mask that a sweep can vary, by JSON pointer, plus length and density. */
    public static List<Swept> sweepable(MaskConfig config) {
        List<Swept> out = new ArrayList<>(List.of(Swept.NONE, Swept.SEQ, Swept.DENSITY));
        numericFields(Sweep.tree(config).path("mask"), "/mask", out);
        return out;
    }

    private static void numericFields(JsonNode n, String pointer, List<Swept> out) {
        if (n.isNumber()) {
            out.add(new Swept(pointer, pointer));
        } else if (n.isObject()) {
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                numericFields(e.getValue(), pointer + "/" + e.getKey().replace("~", "~0").replace("/", "~1"), out);
            }
        } else if (n.isArray() && n.size() <= 4) {
            for (int i = 0; i < n.size(); i++) {
                numericFields(n.get(i), pointer + "/" + i, out);
            }
        }
    }

    /** Starts a sweep of {@code config}; a bad option or value shows in the status and nothing runs. */
    public void run(MaskConfig config) {
        if (running.get()) {
            return;
        }
        BackendChoice choice = backend.get();
        if (choice == null || !choice.usable()) {
            fail(choice == null ? "No backend to run on." : choice.description());
            return;
        }
        if (!estimateFits.get()) {
            fail(estimateText.get());
            return;
        }
        List<SweepPoint> points;
        try {
            points = sweep(config).points();
        } catch (BadSweep | IllegalArgumentException e) {
            fail(e.getMessage());
            return;
        }
        if (points.isEmpty()) {
            fail("The sweep has no points.");
            return;
        }
        SweepRunner.Settings settings;
        try {
            settings = settings();
        } catch (IllegalArgumentException e) {
            fail(e.getMessage());
            return;
        }
        rows.clear();
        failed.set(false);
        running.set(true);
        progress.set(0);
        String with = withSinks(settings);
        status.set("Opening the " + choice.name() + " backend" + with + "\u2026");
        task = choice.remote() != null ? remoteSweep(choice, config, settings, points.size()) : new Task<>() {
            @Override
            protected SweepRunner.Outcome call() {
                // running ends when this thread is done, after every row it posted (a cancelled task returns early)
                try (AttentionBackend b = choice.open().get()) {
                    if (settings.sinks() && !b.timesSinks()) {
                        throw new IllegalArgumentException(AttentionBackend.sinksRefusal(b.name()));
                    }
                    BenchEnvironment env = BenchEnvironment.here(b.name(), b.device(), "saw window");
                    Platform.runLater(() -> environment = env);
                    return new SweepRunner(b, settings).run(points, new SweepRunner.Listener() {
                        @Override
                        public void pointStarted(SweepPoint point, SweepRunner.Progress p) {
                            updateMessage("Running " + point.label() + with + " (" + (p.done() + 1) + " of " + p.total() + ")" + eta(p));
                        }

                        @Override
                        public void rowFinished(BenchRow row, SweepRunner.Progress p) {
                            Platform.runLater(() -> rows.add(row));
                            updateProgress(p.done(), p.total());
                            updateMessage(p.done() + " of " + p.total() + " points done" + with + eta(p));
                        }
                    }, this::isCancelled);
                } finally {
                    boolean cancelled = isCancelled();
                    Platform.runLater(() -> {
                        running.set(false);
                        if (cancelled) {
                            status.set("Cancelled; " + rows.size() + " finished rows kept.");
                        }
                    });
                }
            }
        };
        task.messageProperty().addListener((o, a, m) -> status.set(m));
        task.progressProperty().addListener((o, a, p) -> progress.set(Math.max(0, p.doubleValue())));
        task.setOnSucceeded(e -> {
            SweepRunner.Outcome out = task.getValue();
            status.set(out.rows() + " rows" + with + (out.failed() > 0 ? ", " + out.failed() + " failed" : "") + ".");
        });
        task.setOnCancelled(e -> status.set("Cancelling after the repetition in progress\u2026"));
        task.setOnFailed(e -> {
            Throwable t = task.getException();
            fail("The sweep stopped: " + (t.getMessage() == null ? t.toString() : t.getMessage()));
        });
        executor.execute(task);
    }

    /** The sweep on a remote target: rows arrive as the server finishes them; running ends with the task. */
    private Task<SweepRunner.Outcome> remoteSweep(BackendChoice choice, MaskConfig config, SweepRunner.Settings settings, int points) {
        Sweep planned;
        try {
            planned = sweep(config);
        } catch (BadSweep e) {
            throw new IllegalStateException(e.getMessage(), e); // checked above, when the points were made
        }
        Task<?>[] self = new Task<?>[1];
        RemoteSweep t = new RemoteSweep(choice.remote(), planned, settings, points, row -> Platform.runLater(() -> rows.add(row)),
                env -> Platform.runLater(() -> environment = env), () -> Platform.runLater(() -> {
                    running.set(false);
                    if (self[0].isCancelled()) {
                        status.set("Cancelled; the run on " + choice.remote() + " was stopped; " + rows.size() + " finished rows kept.");
                    }
                }));
        self[0] = t;
        return t;
    }

    private void requestEstimate() {
        if (estimating) {
            estimatePending = true;
            return;
        }
        BackendChoice choice = backend.get();
        MaskConfig c = config.get();
        boolean cpu = choice != null && choice.name().equals("cpu");
        boolean gpu = choice != null && choice.usable() && choice.gpuMemoryBytes() > 0;
        Sweep planned;
        try {
            planned = c == null || !(cpu || gpu) || !c.problems().isEmpty() ? null : sweep(c);
        } catch (BadSweep | IllegalArgumentException e) {
            planned = null; // Run reports it in the status
        }
        if (planned == null) {
            estimate.set(null);
            return;
        }
        Sweep s = planned;
        long deviceBytes = gpu ? choice.gpuMemoryBytes() : 0;
        estimating = true;
        Task<Estimate> t = new Task<>() {
            @Override
            protected Estimate call() throws BadSweep {
                return cpu ? cpuEstimate(s.points()) : gpuEstimate(s.points(), deviceBytes);
            }
        };
        t.setOnSucceeded(e -> estimated(t.getValue()));
        t.setOnFailed(e -> estimated(null));
        executor.execute(t);
    }

    private void estimated(Estimate e) {
        estimating = false;
        if (estimatePending) {
            estimatePending = false;
            requestEstimate();
        } else {
            estimate.set(e);
        }
    }

    /**
     * The CPU backend's estimate for the largest point of a sweep (every point needs its own; the largest decides):
     * among the points with the most tensor elements, the first that would not fit (compiling its layout, or the
     * run), else the one that needs the most heap. Null for no points. Compiles layouts: call it on a worker.
     */
    static Estimate cpuEstimate(List<SweepPoint> points) {
        return largestEstimate(points, (p, layout) -> SizeGuard.cpuRun(p.problem(), layout, p.pass()));
    }

    /**
     * The GPU backend's estimate for the largest point of a sweep, as {@link #cpuEstimate} does it: the tile tables
     * on the heap, then the timed run's device memory against a GPU of {@code deviceBytes}.
     */
    static Estimate gpuEstimate(List<SweepPoint> points, long deviceBytes) {
        return largestEstimate(points, (p, layout) -> {
            Estimate tables = SizeGuard.tileTables(p.problem(), layout);
            return tables.fits() ? GpuBackend.timedRunOnDevice(p.problem(), layout, p.pass(), deviceBytes) : tables;
        });
    }

    private static Estimate largestEstimate(List<SweepPoint> points, BiFunction<SweepPoint, TileLayout, Estimate> run) {
        long most = points.stream().mapToLong(RunModel::tensorElements).max().orElse(-1);
        Estimate largest = null;
        Map<List<Object>, TileLayout> compiled = new HashMap<>();
        for (SweepPoint p : points) {
            if (tensorElements(p) != most) {
                continue;
            }
            int bq = p.tiles().blockQ();
            int bkv = p.tiles().blockKv();
            List<Object> key = List.of(p.mask(), p.dims(), p.tiles());
            TileLayout layout = compiled.get(key);
            if (layout == null) {
                Estimate memory = SizeGuard.compile(p.config(), p.mask(), p.dims(), bq, bkv);
                Estimate time = SizeGuard.compileTime(p.config(), p.mask(), p.dims(), bq, bkv);
                if (!memory.fits() || !time.fits()) {
                    return memory.fits() ? time : memory;
                }
                layout = BoundMask.bind(p.mask(), p.dims()).compile(bq, bkv);
                compiled.put(key, layout);
            }
            Estimate estimate = run.apply(p, layout);
            if (!estimate.fits()) {
                return estimate;
            }
            if (largest == null || estimate.bytes() > largest.bytes()) {
                largest = estimate;
            }
        }
        return largest;
    }

    /** Q, K and V elements of a point's problem: the run's tensors grow with it. */
    private static long tensorElements(SweepPoint p) {
        var q = p.problem();
        return (long) q.batch() * q.headDim() * ((long) q.heads() * q.seqQ() + 2L * q.kvHeads() * q.seqKv());
    }

    /** Stops the sweep after the repetition in progress; {@link #runningProperty()} turns false once it has. */
    public void cancel() {
        if (task != null) {
            task.cancel(false);
        }
    }

    /** The repetitions, seed and learned sinks of a run with these settings; a bad count throws with the CLI's words. */
    SweepRunner.Settings settings() {
        return new SweepRunner.Settings(warmup.get(), reps.get(), 1, sinks.get());
    }

    Sweep sweep(MaskConfig config) throws BadSweep {
        List<KernelTiles> tileSizes = new ArrayList<>();
        for (String t : tiles.get().split("[,;\\s]+")) {
            if (!t.isBlank()) {
                tileSizes.add(KernelTiles.parse(t));
            }
        }
        List<Pass> passes = new ArrayList<>();
        if (forward.get()) {
            passes.add(Pass.FWD);
        }
        if (backward.get()) {
            passes.add(Pass.BWD);
        }
        if (tileSizes.isEmpty() || passes.isEmpty()) {
            throw new BadSweep("pick at least one tile size and one pass");
        }
        List<Double> numbers = parseValues();
        Swept s = swept.get();
        List<Vary> vary = new ArrayList<>();
        List<Double> densities = new ArrayList<>();
        List<Integer> seqs = new ArrayList<>();
        if (s != null && !s.pointer().isEmpty()) {
            if (numbers.isEmpty()) {
                throw new BadSweep("give the values of " + s.label() + " to sweep, e.g. 256, 1024, 4096");
            }
            if (s.equals(Swept.SEQ)) {
                numbers.forEach(v -> seqs.add(v.intValue()));
            } else if (s.equals(Swept.DENSITY)) {
                densities.addAll(numbers);
            } else {
                vary.add(new Vary(s.pointer(), numbers));
            }
        }
        return new Sweep(config.name(), Sweep.tree(config), vary, densities, seqs, tileSizes, passes, batch.get(),
                heads.get(), kvHeads.get(), List.of(headDim.get()), dtype.get(), 1);
    }

    private List<Double> parseValues() throws BadSweep {
        List<Double> out = new ArrayList<>();
        for (String v : values.get().split("[,;\\s]+")) {
            if (v.isBlank()) {
                continue;
            }
            try {
                out.add(Double.parseDouble(v));
            } catch (NumberFormatException e) {
                throw new BadSweep("swept value '" + v + "' is not a number");
            }
        }
        return out;
    }

    private void fail(String message) {
        failed.set(true);
        status.set(inWindowWords(message));
    }

    /** Every entry of the tile sizes that is not QxKV with powers of two in 16..512, in one sentence; "" when none. */
    public ReadOnlyStringProperty tilesProblemProperty() {
        return tilesProblem.getReadOnlyProperty();
    }

    static String tilesProblem(String text) {
        List<String> bad = new ArrayList<>();
        int good = 0;
        for (String t : text.split("[,;\\s]+")) {
            if (t.isBlank()) {
                continue;
            }
            try {
                KernelTiles k = KernelTiles.parse(t);
                if (saw.engine.mask.MaskChecks.isValidBlock(k.blockQ()) && saw.engine.mask.MaskChecks.isValidBlock(k.blockKv())) {
                    good++;
                    continue;
                }
            } catch (IllegalArgumentException e) {
                // listed below with the others
            }
            bad.add("'" + t + "'");
        }
        if (!bad.isEmpty()) {
            return "tile sizes: " + String.join(", ", bad) + (bad.size() == 1 ? " is" : " are")
                    + " not QxKV with powers of two in 16..512 (e.g. 128x64)";
        }
        return good == 0 ? "tile sizes: give at least one, e.g. 128x64" : "";
    }

    /**
     * The engine's sentences name the CLI's flags; in the window the same settings are fields with other names.
     */
    static String inWindowWords(String message) {
        return message.replace("use --backend cpu on this machine", "choose the cpu backend")
                .replace("use --backend cpu", "choose the cpu backend")
                .replace("--batch, --heads and --kv-heads", "batch, heads and kv heads")
                .replace("--warmup", "warm-up").replace("--reps", "repetitions").replace("--block", "tile size")
                .replace("--density", "density").replace("--head-dim", "head dim").replace("--seq", "sequence length")
                .replace("--vary", "sweep").replace("--sinks", "learned sinks");
    }

    /** " with learned sinks" for a run that times them, for the progress and summary lines; else "". */
    static String withSinks(SweepRunner.Settings settings) {
        return settings.sinks() ? " with learned sinks" : "";
    }

    private static String eta(SweepRunner.Progress p) {
        long eta = p.etaNanos();
        return eta < 0 ? "" : String.format(Locale.ROOT, ", about %.0f s left", eta / 1e9);
    }
}
