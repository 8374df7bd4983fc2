package saw.engine.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;

/**
 * One row of a {@code saw.bench/1} results file: one configuration, tile size and pass, timed on one backend.
 * {@code varied} maps each swept JSON pointer to its value at this point (in sweep order); {@code density} is the
 * requested block density of a {@code --density} point, else NaN; {@code sinks} says whether the run timed learned
 * sink logits too. A failed point has no timing (null) and a status of "failed: message".
 */
public record BenchRow(int index, String config, Map<String, Double> varied, double density,
                       AttentionProblem problem, KernelTiles tiles, Pass pass, boolean sinks, String backend, String kernel,
                       String layout, TileStats stats, Work work, int warmup, Timing timing, String status) {
    public static final String OK = "ok";

    /** A row of a run without sink logits. */
    public BenchRow(int index, String config, Map<String, Double> varied, double density, AttentionProblem problem,
            KernelTiles tiles, Pass pass, String backend, String kernel, String layout, TileStats stats, Work work,
            int warmup, Timing timing, String status) {
        this(index, config, varied, density, problem, tiles, pass, false, backend, kernel, layout, stats, work, warmup,
                timing, status);
    }

    public BenchRow {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(tiles, "tiles");
        Objects.requireNonNull(pass, "pass");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(stats, "stats");
        Objects.requireNonNull(work, "work");
        Objects.requireNonNull(status, "status");
        kernel = kernel == null ? "" : kernel;
        layout = layout == null ? "" : layout;
        varied = Collections.unmodifiableMap(new LinkedHashMap<>(varied));
        if (status.equals(OK) != (timing != null)) {
            throw new IllegalArgumentException("a row has a timing exactly when its status is \"ok\" (status: " + status + ")");
        }
    }

    public boolean ok() {
        return timing != null;
    }

    /** Useful TFLOP/s at the median time; NaN for a failed row. */
    public double usefulTflops() {
        return ok() ? Work.tflops(work.usefulFlops(), timing.medianMs()) : Double.NaN;
    }

    /** Computed TFLOP/s (every visited tile in full) at the median time; NaN for a failed row. */
    public double computedTflops() {
        return ok() ? Work.tflops(work.computedFlops(), timing.medianMs()) : Double.NaN;
    }

    /** Achieved bandwidth in GB/s by the {@link Work#BYTES_MODEL} byte count; NaN for a failed row. */
    public double bandwidthGbs() {
        return ok() ? Work.gbPerSecond(work.bytes(), timing.medianMs()) : Double.NaN;
    }

    /** "failed: " and the message, on one line. */
    public static String failed(String message) {
        String m = message == null || message.isBlank() ? "unknown error" : message;
        return "failed: " + m.replaceAll("\\s+", " ").trim();
    }
}
