package saw.engine.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend.PreparedRun;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

class TunerTest {
    /** Candidates whose runs "take" a known time per tile, so the winner and the margins are known in advance. */
    private static final class KnownTimes implements CandidateRunner {
        final List<String> prepared = new ArrayList<>();
        final List<Boolean> sinksAsked = new ArrayList<>();
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public List<Candidate> candidates(AttentionProblem p, Pass pass) {
            return List.of(new Candidate(new KernelTiles(64, 64), "a"), new Candidate(new KernelTiles(128, 64), "a"),
                    new Candidate(new KernelTiles(128, 128), "a"), new Candidate(new KernelTiles(128, 32), "broken"));
        }

        @Override
        public Candidate defaultCandidate(AttentionProblem p, Pass pass) {
            return new Candidate(new KernelTiles(128, 64), "a");
        }

        @Override
        public String identity() {
            return "fake";
        }

        @Override
        public PreparedRun prepare(Candidate c, AttentionProblem p, TileLayout layout, Pass pass, long seed,
                boolean sinks) {
            assertEquals(c.tiles().blockQ(), layout.blockQ());
            assertEquals(c.tiles().blockKv(), layout.blockKv());
            if (c.family().equals("broken")) {
                throw new IllegalArgumentException("tile 128x32 is not supported");
            }
            prepared.add(c.toString());
            sinksAsked.add(sinks);
            double ms = 100.0 / layout.blockKv() + (layout.blockQ() == 64 ? 1 : 0);
            return new PreparedRun() {
                @Override
                public String kernelName() {
                    return "k_" + c.tiles();
                }

                @Override
                public double runTimedMs() {
                    runs.incrementAndGet();
                    return ms;
                }

                @Override
                public void close() {
                }
            };
        }
    }

    @Test
    void fastestCandidateWinsWithMarginsOverRunnerUpAndDefault() {
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 512, 512, 16, DType.BF16);
        BoundMask mask = BoundMask.bind(new Mask.Causal(0), new Dims(512, 512, 1, 2));
        KnownTimes runner = new KnownTimes();
        List<Double> progress = new ArrayList<>();
        TuneResult r = Tuner.tune(runner, p, mask, Pass.FWD, false, 1, progress::add, () -> false);
        assertEquals("128x128 a", r.winner().candidate().toString());
        assertEquals(100.0 / 128, r.winner().timing().medianMs(), 1e-12);
        assertEquals(100.0 / 64, r.runnerUp().timing().medianMs(), 1e-12);
        assertEquals("128x64 a", r.defaultRow().candidate().toString());
        assertEquals(2.0, r.choice("t").speedupOverDefault(), 1e-12);
        assertEquals(1, r.skipped().size());
        assertTrue(r.skipped().get(0).startsWith("128x32 broken: tile 128x32"), r.skipped().get(0));
        assertEquals(List.of(0.25, 0.5, 0.75, 1.0), progress);
        assertTrue(runner.runs.get() >= 3 * (Tuner.WARMUP_RUNS + Tuner.MIN_REPS), "too few runs: " + runner.runs.get());
        assertEquals(TuneKey.of("fake", Pass.FWD, p, false, MaskSignature.of(mask)), r.key());
    }

    /**
     * Two candidates 1.5% apart on a GPU that slows down steadily (every run 0.2% slower than the one before): timed
     * one after the other, the slower one, timed first, measures faster.
     */
    private static final class Drifting implements CandidateRunner {
        final AtomicInteger runs = new AtomicInteger();
        final List<String> prepared = new ArrayList<>();

        @Override
        public List<Candidate> candidates(AttentionProblem p, Pass pass) {
            return List.of(new Candidate(new KernelTiles(64, 64), "slow"), new Candidate(new KernelTiles(64, 64), "fast"),
                    new Candidate(new KernelTiles(128, 64), "far"));
        }

        @Override
        public Candidate defaultCandidate(AttentionProblem p, Pass pass) {
            return new Candidate(new KernelTiles(64, 64), "slow");
        }

        @Override
        public String identity() {
            return "drifting";
        }

        @Override
        public PreparedRun prepare(Candidate c, AttentionProblem p, TileLayout layout, Pass pass, long seed, boolean sinks) {
            prepared.add(c.family());
            double base = switch (c.family()) {
                case "slow" -> 10.0;
                case "fast" -> 9.85;
                default -> 20.0;
            };
            return new PreparedRun() {
                @Override
                public String kernelName() {
                    return "k_" + c.family();
                }

                @Override
                public double runTimedMs() {
                    return base * (1 + 0.002 * runs.getAndIncrement());
                }

                @Override
                public void close() {
                }
            };
        }
    }

    @Test
    void aCloseFinishIsTimedAgainAlternatelySoThatDriftDoesNotDecideIt() {
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 512, 512, 16, DType.BF16);
        BoundMask mask = BoundMask.bind(new Mask.Causal(0), new Dims(512, 512, 1, 2));
        Drifting runner = new Drifting();
        TuneResult r = Tuner.tune(runner, p, mask, Pass.FWD, false, 1, x -> { }, () -> false);
        assertEquals("fast", r.winner().candidate().family(), "the faster kernel wins once drift weighs on both alike");
        assertEquals(Tuner.CLOSE_ROUNDS * Tuner.MIN_REPS, r.alternateRuns());
        assertEquals(r.alternateRuns(), r.winner().timing().reps());
        assertEquals(r.alternateRuns(), r.runnerUp().timing().reps());
        assertEquals("slow", r.defaultRow().candidate().family(), "the default's row is its re-timed one");
        assertTrue(r.defaultRow() == r.runnerUp(), "the default's row is the runner-up's");
        assertEquals(List.of("slow", "fast", "far", "slow", "fast", "fast", "slow", "slow", "fast", "fast", "slow"), runner.prepared,
                "one prepared run at a time, the order flipping every round");
        assertEquals("far", r.rows().get(2).candidate().family());

        // the same candidates timed once, one after the other: the drift alone makes the slower kernel win
        Drifting once = new Drifting();
        double slow;
        double fast;
        try (PreparedRun a = once.prepare(new Candidate(new KernelTiles(64, 64), "slow"), p, null, Pass.FWD, 1, false);
             PreparedRun b = once.prepare(new Candidate(new KernelTiles(64, 64), "fast"), p, null, Pass.FWD, 1, false)) {
            slow = Tuner.time(a, () -> false).medianMs();
            fast = Tuner.time(b, () -> false).medianMs();
        }
        assertTrue(slow < fast, "sequential timing favours the kernel timed first: " + slow + " vs " + fast);
    }

    @Test
    void aClearWinnerIsNotTimedAgain() {
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 512, 512, 16, DType.BF16);
        BoundMask mask = BoundMask.bind(new Mask.Causal(0), new Dims(512, 512, 1, 2));
        KnownTimes runner = new KnownTimes();
        TuneResult r = Tuner.tune(runner, p, mask, Pass.FWD, false, 1, x -> { }, () -> false);
        assertEquals(0, r.alternateRuns());
        assertEquals(3, runner.prepared.size(), "each candidate prepared once: " + runner.prepared);
    }

    @Test
    void aTuneWithSinksPreparesEveryCandidateWithSinksAndKeysItsResultSo() {
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 512, 512, 16, DType.BF16);
        BoundMask mask = BoundMask.bind(new Mask.Causal(0), new Dims(512, 512, 1, 2));
        KnownTimes runner = new KnownTimes();
        TuneResult r = Tuner.tune(runner, p, mask, Pass.BWD, true, 1, x -> { }, () -> false);
        assertEquals(3, runner.sinksAsked.size());
        assertTrue(runner.sinksAsked.stream().allMatch(b -> b), "every candidate timed with sinks: " + runner.sinksAsked);
        assertEquals(TuneKey.of("fake", Pass.BWD, p, true, MaskSignature.of(mask)), r.key());
    }

    @Test
    void cancellingStopsTheTune() {
        AttentionProblem p = AttentionProblem.of(1, 1, 1, 256, 256, 16, DType.BF16);
        BoundMask mask = BoundMask.bind(new Mask.Causal(0), new Dims(256, 256, 1, 1));
        AtomicInteger polls = new AtomicInteger();
        KnownTimes runner = new KnownTimes();
        assertThrows(CancellationException.class,
                () -> Tuner.tune(runner, p, mask, Pass.FWD, false, 1, x -> { }, () -> polls.incrementAndGet() > 5));
        assertTrue(runner.prepared.size() <= 1, "kept tuning after cancel: " + runner.prepared);
    }
}
