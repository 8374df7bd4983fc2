package saw.engine.tune;

/**
 * A cache entry: the winner of a tune, its median time, the runner-up's and the default's medians (ms), and when it
 * was measured (ISO-8601).
 */
public record TuneChoice(Candidate winner, double medianMs, double runnerUpMs, double defaultMs, String measuredAt) {
    public TuneChoice {
        if (winner == null || !(medianMs > 0) || !(runnerUpMs > 0) || !(defaultMs > 0) || measuredAt == null) {
            throw new IllegalArgumentException("a tune choice needs a winner and positive times");
        }
    }

    /** How much faster the winner is than the default, e.g. 1.25. */
    public double speedupOverDefault() {
        return defaultMs / medianMs;
    }
}
