package saw.engine.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import saw.engine.attention.AttentionBackend;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/**
 * Runs a sweep on one backend: per point it compiles the layout (reused across passes of the same mask and tile
 * size), prepares the pass once, runs {@code warmup} untimed and {@code reps} timed repetitions and reports a row.
 * A point that fails becomes a row with status "failed: ..." and the sweep goes on. Cancellation is checked between
 * repetitions; a point cut short by it gives no row.
 */
public final class SweepRunner {
    /**
     * Repetitions, the seed for the random inputs, and whether every pass also times learned sink logits (random,
     * one per head, from the seed; a backend that does not time them fails each point with a sentence that says so).
     */
    public record Settings(int warmup, int reps, long seed, boolean sinks) {
        public static final int DEFAULT_WARMUP = 5;
        public static final int DEFAULT_REPS = 20;

        /** Settings of runs without sink logits. */
        public Settings(int warmup, int reps, long seed) {
            this(warmup, reps, seed, false);
        }

        public Settings {
            if (warmup < 0) {
                throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
            }
            if (reps < 1) {
                throw new IllegalArgumentException("--reps must be >= 1, got " + reps);
            }
        }
    }

    /** How far a sweep is: points done of the total and the time since it started. */
    public record Progress(int done, int total, long elapsedNanos) {
        /** Estimated time left, from the mean time per finished point; -1 before the first point finishes. */
        public long etaNanos() {
            return done == 0 ? -1 : elapsedNanos / done * (total - done);
        }

        public double fraction() {
            return total == 0 ? 1 : (double) done / total;
        }
    }

    /** What a sweep did: rows written, how many of them failed, and whether it was cancelled. */
    public record Outcome(int rows, int failed, boolean cancelled) {}

    /** Hears of a sweep as it goes; rows arrive in point order, on the thread that runs the sweep. */
    public interface Listener {
        default void pointStarted(SweepPoint point, Progress progress) {}

        void rowFinished(BenchRow row, Progress progress);
    }

    /** Saves each compiled layout (once per distinct mask, sizes and tile size) and says where, for the rows. */
    @FunctionalInterface
    public interface LayoutSink {
        /** Saves the layout of {@code point}, first timed as row {@code row}; returns the name rows record, or "". */
        String save(int row, SweepPoint point, TileLayout layout) throws IOException;
    }

    private final AttentionBackend backend;
    private final Settings settings;
    private final LayoutSink layouts;

    public SweepRunner(AttentionBackend backend, Settings settings) {
        this(backend, settings, (row, point, layout) -> "");
    }

    public SweepRunner(AttentionBackend backend, Settings settings, LayoutSink layouts) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.layouts = Objects.requireNonNull(layouts, "layouts");
    }

    public Outcome run(List<SweepPoint> points, Listener listener, BooleanSupplier cancelled) {
        return run(points, 0, listener, cancelled);
    }

    /**
     * Runs the points from index {@code first} on (a resumed sweep: the rows before it are already written); rows
     * keep their index in the whole sweep, progress and the outcome count only the points run here.
     */
    public Outcome run(List<SweepPoint> points, int first, Listener listener, BooleanSupplier cancelled) {
        if (first < 0 || first > points.size()) {
            throw new IllegalArgumentException("first row " + first + " is not in 0.." + points.size());
        }
        long start = System.nanoTime();
        int failed = 0;
        int total = points.size() - first;
        CompiledPoint compiled = null;
        for (int i = first; i < points.size(); i++) {
            if (cancelled.getAsBoolean()) {
                return new Outcome(i - first, failed, true);
            }
            SweepPoint p = points.get(i);
            listener.pointStarted(p, new Progress(i - first, total, System.nanoTime() - start));
            BenchRow row;
            try {
                if (compiled == null || !compiled.matches(p)) {
                    compiled = null;
                    compiled = CompiledPoint.of(p);
                    compiled.saved = save(i, p, compiled.layout);
                }
                row = measure(i, p, compiled, cancelled);
            } catch (RuntimeException e) {
                boolean current = compiled != null && compiled.matches(p);
                row = failedRow(i, p, current ? compiled.stats : null, current ? compiled.saved : "", "", describe(e));
            }
            if (row == null) {
                return new Outcome(i - first, failed, true);
            }
            if (!row.ok()) {
                failed++;
            }
            listener.rowFinished(row, new Progress(i + 1 - first, total, System.nanoTime() - start));
        }
        return new Outcome(total, failed, false);
    }

    /** The row of one point, or null when cancelled part way. */
    private BenchRow measure(int index, SweepPoint p, CompiledPoint c, BooleanSupplier cancelled) {
        String kernel = "";
        try (AttentionBackend.PreparedRun run = backend.prepare(p.problem(), c.layout, p.pass(), settings.seed(), settings.sinks())) {
            kernel = run.kernelName();
            for (int w = 0; w < settings.warmup(); w++) {
                if (cancelled.getAsBoolean()) {
                    return null;
                }
                run.runTimedMs();
            }
            double[] samples = new double[settings.reps()];
            for (int r = 0; r < samples.length; r++) {
                if (cancelled.getAsBoolean()) {
                    return null;
                }
                samples[r] = run.runTimedMs();
            }
            Timing timing = Timing.of(samples);
            return new BenchRow(index, p.config(), p.varied(), p.density(), p.problem(), p.tiles(), p.pass(),
                    settings.sinks(), backend.name(), kernel, c.saved, c.stats, Work.of(p.problem(), p.tiles(), p.pass(), c.stats),
                    settings.warmup(), timing, BenchRow.OK);
        } catch (RuntimeException e) {
            return failedRow(index, p, c.stats, c.saved, kernel, describe(e));
        }
    }

    private BenchRow failedRow(int index, SweepPoint p, TileStats stats, String layout, String kernel, String message) {
        TileStats s = stats != null ? stats : new TileStats(0, 0, 0, 0, Double.NaN, Double.NaN);
        return new BenchRow(index, p.config(), p.varied(), p.density(), p.problem(), p.tiles(), p.pass(), settings.sinks(),
                backend.name(), kernel, layout, s, Work.of(p.problem(), p.tiles(), p.pass(), s), settings.warmup(), null, BenchRow.failed(message));
    }

    private String save(int row, SweepPoint point, TileLayout layout) {
        try {
            return layouts.save(row, point, layout);
        } catch (IOException e) {
            throw new UncheckedIOException("could not save the layout of row " + row + ": " + e.getMessage(), e);
        }
    }

    private static String describe(RuntimeException e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /** A point's compiled layout and stats, kept while the next points share its mask, sizes and tile size. */
    private static final class CompiledPoint {
        final SweepPoint point;
        final TileLayout layout;
        final TileStats stats;
        String saved = "";

        private CompiledPoint(SweepPoint point, TileLayout layout) {
            this.point = point;
            this.layout = layout;
            this.stats = TileStats.of(layout);
        }

        static CompiledPoint of(SweepPoint p) {
            SizeGuard.compile(p.config(), p.mask(), p.dims(), p.tiles().blockQ(), p.tiles().blockKv()).orThrow();
            SizeGuard.compileTime(p.config(), p.mask(), p.dims(), p.tiles().blockQ(), p.tiles().blockKv()).orThrow();
            return new CompiledPoint(p, BoundMask.bind(p.mask(), p.dims()).compile(p.tiles().blockQ(), p.tiles().blockKv()));
        }

        boolean matches(SweepPoint p) {
            return point.mask().equals(p.mask()) && point.dims().equals(p.dims()) && point.tiles().equals(p.tiles());
        }
    }
}
