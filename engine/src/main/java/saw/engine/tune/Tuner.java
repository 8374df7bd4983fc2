package saw.engine.tune;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleConsumer;
import saw.engine.attention.AttentionBackend.PreparedRun;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.Timing;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/**
 * Times every candidate of one pass: warm-up runs first (at least {@value #WARMUP_RUNS} and
 * {@value #WARMUP_MS} ms), then at least {@value #MIN_REPS} timed runs and {@value #MIN_MS} ms (at most
 * {@value #MAX_REPS}); the median decides. Inputs rotate inside each prepared run (the GPU backend's sets).
 */
public final class Tuner {
    static final int WARMUP_RUNS = 3;
    static final double WARMUP_MS = 25;
    static final int MIN_REPS = 10;
    static final double MIN_MS = 60;
    static final int MAX_REPS = 100;

    private Tuner() {}

    /**
     * @param progress receives the share of candidates done, 0..1
     * @param cancelled polled between runs; when it turns true the tune stops with a {@link CancellationException}
     */
    public static TuneResult tune(CandidateRunner runner, AttentionProblem p, BoundMask mask, Pass pass, boolean sinks,
                                  long seed, DoubleConsumer progress, BooleanSupplier cancelled) {
        long t0 = System.nanoTime();
        MaskSignature signature = MaskSignature.of(mask);
        TuneKey key = TuneKey.of(runner.identity(), pass, p, sinks, signature);
        List<Candidate> candidates = runner.candidates(p, pass);
        Candidate def = runner.defaultCandidate(p, pass);
        Map<KernelTiles, TileLayout> layouts = new HashMap<>();
        List<TuneResult.Row> rows = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        TuneResult.Row defaultRow = null;
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            checkCancelled(cancelled);
            try {
                TileLayout layout = layouts.computeIfAbsent(c.tiles(), t -> mask.compile(t.blockQ(), t.blockKv()));
                try (PreparedRun run = runner.prepare(c, p, layout, pass, seed, sinks)) {
                    TuneResult.Row row = new TuneResult.Row(c, run.kernelName(), time(run, cancelled));
                    rows.add(row);
                    if (c.equals(def)) {
                        defaultRow = row;
                    }
                }
            } catch (IllegalArgumentException e) {
                skipped.add(c + ": " + e.getMessage());
            }
            progress.accept((i + 1) / (double) candidates.size());
        }
        rows.sort(Comparator.comparingDouble(r -> r.timing().medianMs()));
        return new TuneResult(key, rows, skipped, defaultRow, (System.nanoTime() - t0) / 1e9);
    }

    static Timing time(PreparedRun run, BooleanSupplier cancelled) {
        double spent = 0;
        for (int w = 0; w < WARMUP_RUNS || spent < WARMUP_MS && w < MAX_REPS; w++) {
            spent += run.runTimedMs();
        }
        double[] samples = new double[MAX_REPS];
        int n = 0;
        spent = 0;
        while (n < MAX_REPS && (n < MIN_REPS || spent < MIN_MS)) {
            checkCancelled(cancelled);
            samples[n] = run.runTimedMs();
            spent += samples[n++];
        }
        return Timing.of(java.util.Arrays.copyOf(samples, n));
    }

    private static void checkCancelled(BooleanSupplier cancelled) {
        if (cancelled.getAsBoolean()) {
            throw new CancellationException("the tune was cancelled");
        }
    }
}
