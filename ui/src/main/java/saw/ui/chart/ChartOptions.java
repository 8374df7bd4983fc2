package saw.ui.chart;

import java.util.Objects;

/** How to draw a benchmark chart: the x axis, the metric on y, and whether y is logarithmic. */
public record ChartOptions(ChartKind kind, Metric metric, boolean logScale) {
    public ChartOptions {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(metric, "metric");
    }

    public static ChartOptions of(ChartKind kind) {
        return new ChartOptions(kind, Metric.USEFUL_TFLOPS, false);
    }

    public ChartOptions withLogScale(boolean log) {
        return new ChartOptions(kind, metric, log);
    }

    public ChartOptions withMetric(Metric m) {
        return new ChartOptions(kind, m, logScale);
    }
}
