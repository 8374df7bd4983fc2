package saw.engine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.mask.Mask;

class SweepRunnerTest {
    static List<SweepPoint> points(int... headDims) {
        List<SweepPoint> points = new ArrayList<>();
        for (int d : headDims) {
            for (KernelTiles t : List.of(new KernelTiles(32, 32), new KernelTiles(64, 32))) {
                for (Pass pass : Pass.values()) {
                    AttentionProblem p = AttentionProblem.of(1, 2, 1, 256, 256, d, DType.BF16);
                    points.add(new SweepPoint("causal", Map.of("/mask/causal/offset", 0.0), Double.NaN,
                            new Mask.Causal(0), p, t, pass));
                }
            }
        }
        return points;
    }

    @Test
    void aFailedPointIsRecordedAndTheSweepGoesOn() {
        TileWorkBackend backend = new TileWorkBackend(48);
        List<BenchRow> rows = new ArrayList<>();
        List<SweepRunner.Progress> progress = new ArrayList<>();
        SweepRunner.Outcome outcome = new SweepRunner(backend, new SweepRunner.Settings(1, 5, 7))
                .run(points(16, 48, 32), (row, p) -> {
                    rows.add(row);
                    progress.add(p);
                }, () -> false);
        assertEquals(new SweepRunner.Outcome(12, 4, false), outcome);
        assertEquals(12, rows.size());
        for (int i = 0; i < rows.size(); i++) {
            BenchRow r = rows.get(i);
            assertEquals(i, r.index());
            assertEquals(i + 1, progress.get(i).done());
            assertEquals(12, progress.get(i).total());
            boolean refused = r.problem().headDim() == 48;
            assertEquals(!refused, r.ok(), r.status());
            if (refused) {
                assertEquals("failed: head dim 48 is not supported by the test double", r.status());
                assertTrue(Double.isNaN(r.usefulTflops()));
                assertTrue(r.stats().visited() > 0, "a failed point keeps its tile counts");
            } else {
                assertEquals(5, r.timing().reps());
                assertTrue(r.kernel().startsWith(r.pass().label() + "_tilework_q" + r.tiles().blockQ()), r.kernel());
                assertTrue(r.usefulTflops() > 0 && r.computedTflops() >= r.usefulTflops(), r.toString());
            }
        }
        assertEquals(8, backend.prepared);
        assertEquals(8 * (1 + 5), backend.runs);
        assertTrue(progress.get(11).etaNanos() == 0 && progress.get(0).etaNanos() >= 0);
    }

    @Test
    void cancellingKeepsFinishedRowsAndStopsPromptly() {
        TileWorkBackend backend = new TileWorkBackend(-1);
        AtomicInteger rowsSeen = new AtomicInteger();
        List<BenchRow> rows = new ArrayList<>();
        SweepRunner.Outcome outcome = new SweepRunner(backend, new SweepRunner.Settings(0, 4, 1))
                .run(points(16, 16, 16), (row, p) -> {
                    rows.add(row);
                    rowsSeen.incrementAndGet();
                }, () -> backend.runs >= 4 * 3 + 2);
        assertTrue(outcome.cancelled());
        assertEquals(3, outcome.rows());
        assertEquals(3, rows.size());
        assertEquals(4 * 3 + 2, backend.runs, "no repetition runs after the cancel flag is seen");
        assertFalse(rows.stream().anyMatch(r -> !r.ok()));
    }

    @Test
    void withSinksTheCpuTimesThemAndEveryRowRecordsThem() {
        List<BenchRow> rows = new ArrayList<>();
        try (saw.engine.cpu.CpuBackend cpu = new saw.engine.cpu.CpuBackend()) {
            SweepRunner.Outcome outcome = new SweepRunner(cpu, new SweepRunner.Settings(0, 1, 3, true))
                    .run(points(16), (row, p) -> rows.add(row), () -> false);
            assertEquals(new SweepRunner.Outcome(4, 0, false), outcome);
        }
        for (BenchRow r : rows) {
            assertTrue(r.ok() && r.sinks(), r.toString());
            assertTrue(r.kernel().endsWith("_sinks"), r.kernel());
        }
    }

    @Test
    void aBackendThatDoesNotTimeSinksFailsEachPointNamingTheSetting() {
        List<BenchRow> rows = new ArrayList<>();
        SweepRunner.Outcome outcome = new SweepRunner(new TileWorkBackend(-1), new SweepRunner.Settings(0, 1, 3, true))
                .run(points(16), (row, p) -> rows.add(row), () -> false);
        assertEquals(new SweepRunner.Outcome(4, 4, false), outcome);
        for (BenchRow r : rows) {
            assertTrue(r.sinks(), r.toString());
            assertEquals("failed: --sinks: the test-double backend does not time learned sink logits; run on the gpu or cpu"
                    + " backend, or turn them off", r.status());
        }
    }
}
