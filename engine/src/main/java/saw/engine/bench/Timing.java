package saw.engine.bench;

import java.util.Arrays;

/**
 * The times of one benchmark point: median, 10th and 90th percentile over {@code reps} timed runs, in ms.
 * Percentiles interpolate linearly between the two nearest ranks (numpy's default), so Python readers of the same
 * samples get the same numbers.
 */
public record Timing(double medianMs, double p10Ms, double p90Ms, int reps) {
    public Timing {
        if (reps < 1) {
            throw new IllegalArgumentException("reps must be >= 1, got " + reps);
        }
        if (!(p10Ms <= medianMs && medianMs <= p90Ms)) {
            throw new IllegalArgumentException("percentiles out of order: p10 " + p10Ms + ", median " + medianMs + ", p90 " + p90Ms);
        }
    }

    /** Summarises timed samples (in ms); they must be finite and non-negative. */
    public static Timing of(double[] samplesMs) {
        if (samplesMs.length == 0) {
            throw new IllegalArgumentException("no timed samples");
        }
        double[] sorted = samplesMs.clone();
        for (double s : sorted) {
            if (!(s >= 0) || Double.isInfinite(s)) {
                throw new IllegalArgumentException("a timed run returned " + s + " ms");
            }
        }
        Arrays.sort(sorted);
        return new Timing(percentile(sorted, 50), percentile(sorted, 10), percentile(sorted, 90), sorted.length);
    }

    /** The p-th percentile (0..100) of ascending {@code sorted}, linear between closest ranks. */
    public static double percentile(double[] sorted, double p) {
        if (sorted.length == 0 || !(p >= 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile " + p + " of " + sorted.length + " samples");
        }
        double rank = p / 100.0 * (sorted.length - 1);
        int lo = (int) Math.floor(rank);
        int hi = Math.min(lo + 1, sorted.length - 1);
        double frac = rank - lo;
        // clamped: a + frac * (b - a) can overshoot b by an ulp, which would put p10 above the median
        return Math.min(sorted[hi], sorted[lo] + frac * (sorted[hi] - sorted[lo]));
    }
}
