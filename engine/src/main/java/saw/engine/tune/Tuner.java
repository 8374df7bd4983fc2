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
 * {@value #MAX_REPS}); the median decides. Each timed run of the GPU backend empties L2 first
 * ({@code GpuBackend.flushBytes}). When the runner-up's median is within {@link #CLOSE} of the winner's, the two are
 * timed again in alternating blocks
 * (A B B A A B B A), and those samples decide: candidates timed one after the other see the GPU's clock and
 * temperature drift between them, which at such margins can decide alone (the H200's head dim 256 forwards, for one).
 */
public final class Tuner {
    static final int WARMUP_RUNS = 3;
    static final double WARMUP_MS = 25;
    static final int MIN_REPS = 10;
    static final double MIN_MS = 60;
    static final int MAX_REPS = 100;
    /** The runner-up within this fraction of the winner's median: a close finish, timed again alternately. */
    public static final double CLOSE = 0.03;
    /** Rounds of a close finish's alternate timing; each round times both, in alternating order. */
    static final int CLOSE_ROUNDS = 4;

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
        int alternateRuns = 0;
        if (rows.size() > 1 && rows.get(1).timing().medianMs() < rows.get(0).timing().medianMs() * (1 + CLOSE)) {
            List<TuneResult.Row> again = timeAlternately(runner, rows.subList(0, 2), layouts, p, pass, seed, sinks, cancelled);
            for (int i = 0; i < 2; i++) {
                if (rows.get(i) == defaultRow) {
                    defaultRow = again.get(i);
                }
                rows.set(i, again.get(i));
            }
            alternateRuns = again.get(0).timing().reps();
            rows.sort(Comparator.comparingDouble(r -> r.timing().medianMs()));
        }
        return new TuneResult(key, rows, skipped, defaultRow, alternateRuns, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * The two rows timed again: {@link #CLOSE_ROUNDS} rounds, each a block of {@link #MIN_REPS} runs of both (the order
     * flips every round, so a steady drift weighs on both alike), each block on a freshly prepared run after its
     * warm-up (one prepared run at a time, as in the first pass, so that the GPU's memory holds one problem's inputs).
     */
    private static List<TuneResult.Row> timeAlternately(CandidateRunner runner, List<TuneResult.Row> two,
                                                        Map<KernelTiles, TileLayout> layouts, AttentionProblem p,
                                                        Pass pass, long seed, boolean sinks, BooleanSupplier cancelled) {
        double[][] samples = new double[2][CLOSE_ROUNDS * MIN_REPS];
        for (int round = 0; round < CLOSE_ROUNDS; round++) {
            for (int k = 0; k < 2; k++) {
                int which = round % 2 == 0 ? k : 1 - k;
                Candidate c = two.get(which).candidate();
                try (PreparedRun run = runner.prepare(c, p, layouts.get(c.tiles()), pass, seed, sinks)) {
                    for (int w = 0; w < WARMUP_RUNS; w++) {
                        run.runTimedMs();
                    }
                    for (int i = 0; i < MIN_REPS; i++) {
                        checkCancelled(cancelled);
                        samples[which][round * MIN_REPS + i] = run.runTimedMs();
                    }
                }
            }
        }
        return List.of(new TuneResult.Row(two.get(0).candidate(), two.get(0).kernel(), Timing.of(samples[0])),
                new TuneResult.Row(two.get(1).candidate(), two.get(1).kernel(), Timing.of(samples[1])));
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
