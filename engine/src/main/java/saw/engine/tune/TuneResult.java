package saw.engine.tune;

import java.util.List;
import saw.engine.bench.Timing;

/**
 * A finished tune of one pass: the rows fastest first, the candidates that could not run and why, the default's row
 * (null when the default could not run), how many runs of each of the two fastest a close finish took when they were
 * timed again alternately (their rows hold those timings; 0 when the finish was not close) and how long the tune took.
 */
public record TuneResult(TuneKey key, List<Row> rows, List<String> skipped, Row defaultRow, int alternateRuns,
                         double seconds) {
    public TuneResult {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no candidate ran: " + String.join("; ", skipped));
        }
        rows = List.copyOf(rows);
        skipped = List.copyOf(skipped);
    }

    /** One timed candidate and its kernel name. */
    public record Row(Candidate candidate, String kernel, Timing timing) {}

    public Row winner() {
        return rows.get(0);
    }

    /** The second fastest, or the winner itself when only one ran. */
    public Row runnerUp() {
        return rows.size() > 1 ? rows.get(1) : rows.get(0);
    }

    /** What the cache stores. */
    public TuneChoice choice(String measuredAt) {
        double def = defaultRow == null ? winner().timing().medianMs() : defaultRow.timing().medianMs();
        return new TuneChoice(winner().candidate(), winner().timing().medianMs(), runnerUp().timing().medianMs(), def,
                measuredAt);
    }
}
