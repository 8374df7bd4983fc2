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
