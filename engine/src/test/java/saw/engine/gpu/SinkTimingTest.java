package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.cpu.CpuBackend;
import saw.engine.cpu.ReferenceBackend;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * The CPU and GPU backends (the GPU's through a fake driver) time sink logits, their plain prepare being the one
 * without sinks; the fp64 reference refuses them with the sentence that names --sinks.
 */
class SinkTimingTest {
    private static final AttentionProblem P = AttentionProblem.of(1, 2, 2, 256, 256, 128, DType.BF16);
    private static final TileLayout LAYOUT = BoundMask.bind(new Mask.Causal(0), new Dims(256, 256, 1, 2)).compile(128, 64);

    private static String kernel(AttentionBackend backend, Pass pass, Boolean sinks) {
        try (AttentionBackend.PreparedRun run = sinks == null ? backend.prepare(P, LAYOUT, pass, 1)
                : backend.prepare(P, LAYOUT, pass, 1, sinks)) {
            assertTrue(run.runTimedMs() >= 0);
            return run.kernelName();
        }
    }

    @Test
    void cpuAndGpuTimeSinksAndTheirPlainPrepareIsTheOneWithout() {
        FakeDriver driver = new FakeDriver(1L << 30);
        try (CpuBackend cpu = new CpuBackend(); GpuBackend gpu = GpuBackend.open(driver, new byte[16], "fake GPU")) {
            for (AttentionBackend backend : new AttentionBackend[] {cpu, gpu}) {
                assertTrue(backend.timesSinks(), backend.name());
                for (Pass pass : Pass.values()) {
                    String plain = kernel(backend, pass, null);
                    assertEquals(kernel(backend, pass, false), plain, backend.name() + " " + pass);
                    assertFalse(plain.contains("sink"), plain);
                }
            }
            assertEquals("cpu_fwd_fp32_q128_kv64_sinks", kernel(cpu, Pass.FWD, true));
        }
        assertTrue(driver.live.isEmpty(), "every buffer freed");
    }

    @Test
    void theReferenceRefusesSinksNamingTheSetting() {
        try (ReferenceBackend reference = new ReferenceBackend()) {
            assertFalse(reference.timesSinks());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> reference.prepare(P, LAYOUT, Pass.FWD, 1, true));
            assertEquals(AttentionBackend.sinksRefusal("cpu-reference"), e.getMessage());
        }
    }
}
