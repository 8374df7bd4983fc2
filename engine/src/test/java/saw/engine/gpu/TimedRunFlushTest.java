package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.BadSelection;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;

/**
 * A timed run fills 256 MiB of scratch before its start event (the L2 cache emptied, the host's launches queued behind
 * the fill, as triton's do_bench and the peers' scripts time theirs) wherever the GPU has room for the scratch beside
 * the pass; where it has not, the run records its start event first rather than fail.
 */
class TimedRunFlushTest {
    private static final long SCRATCH = 256L << 20;
    private static final String FLUSH = "fill " + SCRATCH;

    @Test
    void denseTimedRunsFillTheScratchBeforeTheStartEventWhereTheGpuHasRoom() {
        SplittableRandom rnd = new SplittableRandom(Long.getLong("saw.test.seed", 0x71AEL));
        int[] seen = new int[2];
        for (int n = 0; n < 16 || seen[0] == 0 || seen[1] == 0; n++) {
            int seq = 128 << rnd.nextInt(10);       // 128 to 64K tokens
            int heads = 1 << rnd.nextInt(6);         // 1 to 32 heads
            int headDim = rnd.nextBoolean() ? 64 : 128;
            Pass pass = rnd.nextBoolean() ? Pass.FWD : Pass.BWD;
            AttentionProblem p = AttentionProblem.of(1, heads, heads, seq, seq, headDim, DType.BF16);
            TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(seq, seq, 1, heads)).compile(128, 64);
            boolean room = rnd.nextBoolean();
            // without room: the pass fits with less than the scratch to spare
            long passBytes = SizeGuard.gpuRun(p, layout, pass, 0, Long.MAX_VALUE).bytes();
            FakeDriver driver = new FakeDriver(room ? 1L << 40 : passBytes + rnd.nextLong(SCRATCH));
            try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU");
                    AttentionBackend.PreparedRun run = gpu.prepare(p, layout, pass, n)) {
                driver.timeline.clear();
                run.runTimedMs();
                seen[room ? 1 : 0]++;
                check(driver.timeline, room, p + " " + pass + (room ? "" : " on a GPU of " + driver.total + " bytes"));
            }
            assertTrue(driver.live.isEmpty(), "every buffer freed, the scratch too");
        }
    }

    @Test
    void nsaTimedRunsFillTheScratchBeforeTheStartEventWhereTheGpuHasRoom() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 512, 1, 4, 32, 5);
        AttentionProblem p = new AttentionProblem(1, 16, 1, 512, 512, 64, DType.BF16, 0.125, 0);
        for (long total : new long[] {1L << 34, 64L << 20}) {  // the pass's few MiB fit both; the scratch the first
            FakeDriver driver = new FakeDriver(total);
            driver.kernels.addAll(NsaGpu.allNames());
            try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", 9)) {
                for (Pass pass : Pass.values()) {
                    try (var run = gpu.prepare(p, sel, pass, 3)) {
                        driver.timeline.clear();
                        run.runTimedMs();
                        check(driver.timeline, total > SCRATCH, "NSA " + pass + " on a GPU of " + total + " bytes");
                    }
                }
            }
            assertTrue(driver.live.isEmpty(), "every buffer freed, the scratch too");
        }
    }

    /** One timed run's calls: [the scratch's fill], event, the launch sequence (no fill of the scratch), event. */
    private static void check(List<String> timeline, boolean flushes, String what) {
        List<String> calls = new ArrayList<>(timeline);
        int start = calls.indexOf("event");
        assertTrue(start >= 0 && calls.lastIndexOf("event") == calls.size() - 1 && start < calls.size() - 1,
                what + ": an event, the launches, an event: " + calls);
        List<String> before = calls.subList(0, start);
        if (!flushes) {
            assertEquals(List.of(), before, what + ": before the start event");
            return;
        }
        assertTrue(before.size() == 1 && before.get(0).startsWith(FLUSH + " #"),
                what + ": the scratch's fill alone before the start event: " + before);
        assertTrue(calls.subList(start + 1, calls.size() - 1).stream().noneMatch(before.get(0)::equals),
                what + ": the scratch not filled inside the timed span: " + calls);
    }
}
