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
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.BadSelection;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;

/**
 * A timed run of a problem whose tensors are under 256 MiB fills 256 MiB of scratch before its start event (the L2
 * cache emptied, the host's launches queued behind the fill, as triton's do_bench times the peers); a larger one
 * records its start event first.
 */
class TimedRunFlushTest {
    private static final String FLUSH = "fill " + (256L << 20);

    @Test
    void denseTimedRunsFillTheScratchBeforeTheStartEventOnlyWhereTheTensorsAreSmall() {
        SplittableRandom rnd = new SplittableRandom(Long.getLong("saw.test.seed", 0x71AEL));
        int[] seen = new int[2];
        for (int n = 0; n < 16 || seen[0] == 0 || seen[1] == 0; n++) {
            int seq = 128 << rnd.nextInt(10);       // 128 to 64K tokens
            int heads = 1 << rnd.nextInt(6);         // 1 to 32 heads
            int headDim = rnd.nextBoolean() ? 64 : 128;
            Pass pass = rnd.nextBoolean() ? Pass.FWD : Pass.BWD;
            AttentionProblem p = AttentionProblem.of(1, heads, heads, seq, seq, headDim, DType.BF16);
            TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(seq, seq, 1, heads)).compile(128, 64);
            FakeDriver driver = new FakeDriver(1L << 40);
            try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU");
                    AttentionBackend.PreparedRun run = gpu.prepare(p, layout, pass, n)) {
                driver.timeline.clear();
                run.runTimedMs();
                boolean flushes = GpuBackend.flushBytes(p, pass) > 0;
                seen[flushes ? 1 : 0]++;
                check(driver.timeline, flushes, p + " " + pass);
            }
            assertTrue(driver.live.isEmpty(), "every buffer freed, the scratch too");
        }
    }

    @Test
    void nsaTimedRunsFillTheScratchBeforeTheStartEvent() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 512, 1, 4, 32, 5);
        AttentionProblem p = new AttentionProblem(1, 16, 1, 512, 512, 64, DType.BF16, 0.125, 0);
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", 9)) {
            for (Pass pass : Pass.values()) {
                try (var run = gpu.prepare(p, sel, pass, 3)) {
                    driver.timeline.clear();
                    run.runTimedMs();
                    check(driver.timeline, true, "NSA " + pass);
                }
            }
        }
        assertTrue(driver.live.isEmpty(), "every buffer freed, the scratch too");
    }

    /** One timed run's calls: [the fill], event, the launch sequence, event. */
    private static void check(List<String> timeline, boolean flushes, String what) {
        List<String> calls = new ArrayList<>(timeline);
        int start = calls.indexOf("event");
        assertTrue(start >= 0 && calls.lastIndexOf("event") == calls.size() - 1 && start < calls.size() - 1,
                what + ": an event, the launches, an event: " + calls);
        assertEquals(flushes ? List.of(FLUSH) : List.of(), calls.subList(0, start), what + ": before the start event");
        assertTrue(calls.subList(start + 1, calls.size() - 1).stream().noneMatch(FLUSH::equals),
                what + ": no flush inside the timed span: " + calls);
    }
}
