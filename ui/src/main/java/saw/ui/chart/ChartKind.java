package saw.ui.chart;

import java.util.Locale;

/** What a benchmark chart puts on its x axis. */
public enum ChartKind {
    /** Throughput against block density (visited tiles over all tiles), one line per series. */
    DENSITY("density"),
    /** Throughput per tile size, as grouped bars. */
    BLOCK("block"),
    /** Throughput against sequence length, one line per series. */
    SEQ("seq"),
    /** Implementation against implementation: grouped bars, one group per measured problem, one bar per backend. */
    CONFIG("config");

    private final String label;

    ChartKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static ChartKind parse(String s) {
        for (ChartKind k : values()) {
            if (k.label.equalsIgnoreCase(s.trim())) {
                return k;
            }
        }
        throw new IllegalArgumentException("chart x axis '" + s + "' is not one of density, block, seq, config");
    }

    @Override
    public String toString() {
        return label;
    }
}
