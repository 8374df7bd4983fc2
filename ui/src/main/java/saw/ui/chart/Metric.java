package saw.ui.chart;

import java.util.Locale;
import saw.engine.bench.BenchRow;

/** The throughput a chart plots on its y axis, read from results rows at their median time. */
public enum Metric {
    USEFUL_TFLOPS("useful", "useful TFLOP/s"),
    COMPUTED_TFLOPS("computed", "computed TFLOP/s"),
    BANDWIDTH_GBS("bandwidth", "bandwidth GB/s");

    private final String name;
    private final String axisLabel;

    Metric(String name, String axisLabel) {
        this.name = name;
        this.axisLabel = axisLabel;
    }

    public String axisLabel() {
        return axisLabel;
    }

    /**
     * The unit a chart of values up to {@code largest} shows: TFLOP/s, or GFLOP/s when every value is under one TFLOP/s
     * (CPU runs), so that its ticks read "1.6" rather than "0.0016".
     */
    public Unit unitFor(double largest) {
        if (this != BANDWIDTH_GBS && largest < 1) {
            return new Unit(this, 1000, axisLabel.replace("TFLOP/s", "GFLOP/s"));
        }
        return new Unit(this, 1, axisLabel);
    }

    /** A metric in the unit a chart shows it in. */
    public record Unit(Metric metric, double factor, String axisLabel) {
        public double of(BenchRow row) {
            return metric.of(row) * factor;
        }
    }

    public double of(BenchRow row) {
        if (this == USEFUL_TFLOPS) {
            return row.usefulTflops();
        }
        return this == COMPUTED_TFLOPS ? row.computedTflops() : row.bandwidthGbs();
    }

    public static Metric parse(String s) {
        for (Metric m : values()) {
            if (m.name.equalsIgnoreCase(s.trim())) {
                return m;
            }
        }
        throw new IllegalArgumentException("metric '" + s + "' is not one of useful, computed, bandwidth");
    }

    @Override
    public String toString() {
        return name.toLowerCase(Locale.ROOT);
    }
}
