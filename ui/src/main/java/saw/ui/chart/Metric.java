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
