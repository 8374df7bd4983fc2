package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * The persistent Hopper forward launches on the CTAs the GPU holds at once (multiprocessors x the occupancy answer
 * for its block and shared memory), never more than there are work items, in timed and verification runs alike;
 * elsewhere the backend falls back as for the other Hopper families (fake driver, no GPU).
 */
class PersistentForwardChoiceTest {
    /** Causal documents of 300, 400 and 200 tokens, the rest padding rows that attend nothing. */
    private static TileLayout documents(AttentionProblem p, int bq, int bkv) {
        Mask docs = new Mask.And(List.of(new Mask.Causal(0), Mask.Documents.ofLengths(300, 400, 200)));
        return BoundMask.bind(docs, new Dims(p.seqQ(), p.seqKv(), p.batch(), p.heads())).compile(bq, bkv);
    }

    /** The forward launches of a timed run and of a verification run, with this many SMs and CTAs per SM. */
    private static List<FakeDriver.Launch> forwardLaunches(int major, AttentionProblem p, TileLayout layout, int sms, int perSm) {
        FakeDriver driver = new FakeDriver(8L << 30);
        driver.multiprocessors = sms;
        driver.blocksPerMultiprocessor = perSm;
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", major)) {
            gpu.forwardKernel(ForwardKernel.WGMMA_PERSIST);
            FakeDriver.Launch timed;
            try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, Pass.FWD, 7)) {
                driver.launches.clear();
                run.runTimedMs();
                timed = driver.launches.stream().filter(l -> l.kernel().equals(run.kernelName())).findFirst().orElseThrow();
            }
            driver.launches.clear();
            gpu.forward(AttentionInputs.random(p, 7, false), layout);
            FakeDriver.Launch verified = driver.launches.stream().filter(l -> l.kernel().startsWith("fwd_")).findFirst().orElseThrow();
            for (FakeDriver.Launch asked : driver.occupancyQueries) {
                assertEquals(timed.kernel(), asked.kernel(), "occupancy asked of the launched kernel");
                assertEquals(timed.block(), asked.block());
                assertEquals(timed.sharedBytes(), asked.sharedBytes(), "occupancy asked with the launch's shared memory");
            }
            return List.of(timed, verified);
        }
    }

    @Test
    void persistentForwardRunsOnWhatTheGpuHoldsAtOnce() {
        // 2 batches x 4 heads x 16 q tiles (2048 rows of 128) = 128 work items
        AttentionProblem p = AttentionProblem.of(2, 4, 2, 2048, 2048, 128, DType.BF16);
        TileLayout layout = documents(p, 128, 128);
        for (int[] gpu : new int[][] {{132, 1, 128}, {20, 2, 40}, {50, 1, 50}, {7, 3, 21}}) {
            for (FakeDriver.Launch l : forwardLaunches(9, p, layout, gpu[0], gpu[1])) {
                String where = gpu[0] + " SMs x " + gpu[1] + ": " + l;
                assertEquals("fwd_wgmmapersist_bf16_d128_q128_kv128", l.kernel(), where);
                assertEquals(gpu[2], l.grid(), where);
                assertEquals(384, l.block(), where);
            }
        }
    }

    @Test
    void persistentForwardFallsBackWhereTheHopperForwardDoesNot() {
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 1000, 1000, 64, DType.FP16);
        List<FakeDriver.Launch> sm80 = forwardLaunches(8, p, documents(p, 128, 64), 108, 1);
        sm80.forEach(l -> assertEquals("fwd_fp16_d64_q128_kv64", l.kernel(), "sm_80"));
        sm80.forEach(l -> assertEquals(2L * 8, l.grid(), "one CTA per work item"));
        List<FakeDriver.Launch> tile = forwardLaunches(9, p, documents(p, 128, 64), 132, 1);
        tile.forEach(l -> assertEquals("fwd_fp16_d64_q128_kv64", l.kernel(), "128x64 tiles"));
        List<FakeDriver.Launch> d64 = forwardLaunches(9, p, documents(p, 128, 128), 132, 2);
        d64.forEach(l -> assertEquals("fwd_wgmmapersist_fp16_d64_q128_kv128", l.kernel()));
        d64.forEach(l -> assertEquals(16, l.grid(), "16 items, fewer than the 264 CTAs that fit"));
        assertEquals(2, d64.size(), "a timed and a verification launch");
    }

    @Test
    void ctaLimitSettingShrinksThePersistentGridAndABadOneIsNamed() {
        AttentionProblem p = AttentionProblem.of(2, 4, 2, 2048, 2048, 128, DType.BF16);
        TileLayout layout = documents(p, 128, 128);
        String before = System.getProperty(KernelCatalog.PERSIST_CTAS_PROPERTY);
        try {
            System.setProperty(KernelCatalog.PERSIST_CTAS_PROPERTY, "5");
            forwardLaunches(9, p, layout, 132, 1).forEach(l -> assertEquals(5, l.grid(), "5 CTAs walk 128 items: " + l));
            System.setProperty(KernelCatalog.PERSIST_CTAS_PROPERTY, " 500 ");
            forwardLaunches(9, p, layout, 132, 1).forEach(l -> assertEquals(128, l.grid(), "no more CTAs than items: " + l));
            for (String bad : new String[] {"0", "-3", "many", ""}) {
                System.setProperty(KernelCatalog.PERSIST_CTAS_PROPERTY, bad);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, KernelCatalog::persistentCtaLimit);
                assertEquals("-Dsaw.kernel.fwd.ctas=" + bad + " is not a number of persistent forward CTAs (a whole number >= 1)",
                        e.getMessage());
            }
        } finally {
            if (before == null) {
                System.clearProperty(KernelCatalog.PERSIST_CTAS_PROPERTY);
            } else {
                System.setProperty(KernelCatalog.PERSIST_CTAS_PROPERTY, before);
            }
        }
    }
}
