package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** The backend launches the chosen Hopper backward where it fits and the mma.sync one elsewhere (fake driver, no GPU). */
class BackwardKernelChoiceTest {
    /** A causal layout of this problem's sizes at bq x bkv tiles (shared by the other kernel-choice tests). */
    static TileLayout causal(AttentionProblem p, int bq, int bkv) {
        return BoundMask.bind(new Mask.Causal(0), new Dims(p.seqQ(), p.seqKv(), p.batch(), p.heads())).compile(bq, bkv);
    }

    /** The backward kernel a timed run and a verification run of this problem launch. */
    static String launchedBackward(int major, BackwardKernel preferred, AttentionProblem p, TileLayout layout) {
        FakeDriver driver = new FakeDriver(8L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", major)) {
            gpu.backwardKernel(preferred);
            String timed;
            try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, Pass.BWD, 7)) {
                timed = run.kernelName();
                driver.launched.clear();
                run.runTimedMs();
                assertTrue(driver.launched.contains(timed), timed + " launched by the timed run: " + driver.launched);
            }
            driver.launched.clear();
            gpu.forwardBackward(AttentionInputs.random(p, 7, true), layout);
            assertTrue(driver.launched.contains(timed), timed + " launched by the verification run: " + driver.launched);
            return timed;
        }
    }

    @Test
    void hopperWith128x128TilesRunsTheWarpSpecialisedBackward() {
        AttentionProblem p128 = AttentionProblem.of(1, 4, 2, 384, 384, 128, DType.BF16);
        assertEquals("bwd_wgmmaws_bf16_d128_q128_kv128",
                launchedBackward(9, BackwardKernel.WGMMA_WS, p128, causal(p128, 128, 128)));
        AttentionProblem capped64 = new AttentionProblem(1, 2, 2, 256, 256, 64, DType.FP16, 0.125, 20);
        assertEquals("bwd_wgmmaws_fp16_d64_q128_kv128_softcap",
                launchedBackward(9, BackwardKernel.WGMMA_WS, capped64, causal(capped64, 128, 128)));
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 384, 384, 64, DType.BF16);
        assertEquals("bwd_wgmmaws_bf16_d64_q128_kv128", launchedBackward(9, BackwardKernel.WGMMA_WS, p, causal(p, 128, 128)));
        AttentionProblem capped128 = new AttentionProblem(1, 2, 1, 300, 300, 128, DType.FP16, 0.1, 30);
        assertEquals("bwd_wgmmaws_fp16_d128_q128_kv128_softcap",
                launchedBackward(9, BackwardKernel.WGMMA_WS, capped128, causal(capped128, 128, 128)));
        assertEquals("bwd_bf16_d64_q128_kv128", launchedBackward(8, BackwardKernel.WGMMA_WS, p, causal(p, 128, 128)), "Ampere");
        assertEquals("bwd_bf16_d64_q128_kv64", launchedBackward(9, BackwardKernel.WGMMA_WS, p, causal(p, 128, 64)), "tile");
    }

    @Test
    void dQIsConvertedFromTheLayoutItsBackwardWrote() {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 300, 300, 128, DType.BF16);
        assertEquals(java.util.List.of("bwd_dq_perm_bf16"), conversions(9, BackwardKernel.WGMMA_WS, p),
                "the warp-specialised backward permutes each row's columns");
        assertEquals(java.util.List.of("bwd_dq_bf16"), conversions(9, BackwardKernel.MMA, p), "mma.sync adds rows in order");
        assertEquals(java.util.List.of("bwd_dq_bf16"), conversions(8, BackwardKernel.WGMMA_WS, p), "mma.sync on Ampere");
        AttentionProblem d64 = AttentionProblem.of(2, 2, 1, 200, 200, 64, DType.FP16);
        assertEquals(java.util.List.of("bwd_dq_perm_fp16"), conversions(9, BackwardKernel.WGMMA_WS, d64));
        AttentionProblem d256 = AttentionProblem.of(1, 2, 1, 200, 200, 256, DType.BF16);
        assertEquals(java.util.List.of("bwd_dq_perm_bf16"), conversions(9, BackwardKernel.WGMMA_WS, d256, 64),
                "the head dim 256 Hopper backward adds permuted dQ tiles too");
        WideBackwardChoiceTest.withWideBackward("mma", () -> assertEquals(java.util.List.of("bwd_dq_bf16"),
                conversions(9, BackwardKernel.WGMMA_WS, d256, 64), "its mma.sync backward adds rows in order"));
    }

    /** The dQ conversions a verification run of this problem launches. */
    private static java.util.List<String> conversions(int major, BackwardKernel preferred, AttentionProblem p) {
        return conversions(major, preferred, p, 128);
    }

    private static java.util.List<String> conversions(int major, BackwardKernel preferred, AttentionProblem p, int side) {
        FakeDriver driver = new FakeDriver(8L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", major)) {
            gpu.backwardKernel(preferred);
            gpu.forwardBackward(AttentionInputs.random(p, 7, true), causal(p, side, side));
            return driver.launched.stream().filter(k -> k.startsWith("bwd_dq")).toList();
        }
    }

    @Test
    void everyOtherCaseFallsBackToTheMmaBackward() {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 384, 384, 128, DType.BF16);
        TileLayout square = causal(p, 128, 128);
        assertEquals("bwd_bf16_d128_q128_kv128", launchedBackward(8, BackwardKernel.WGMMA_WS, p, square), "Ampere");
        assertEquals("bwd_bf16_d128_q128_kv128", launchedBackward(9, BackwardKernel.MMA, p, square), "chosen");
        assertEquals("bwd_bf16_d128_q128_kv64", launchedBackward(9, BackwardKernel.WGMMA_WS, p, causal(p, 128, 64)), "tile");
    }

    @Test
    void headDim256RunsTheSplitMmaBackwardOnEveryGpuAndFamily() {
        AttentionProblem p = AttentionProblem.of(1, 4, 1, 300, 300, 256, DType.BF16);
        for (int major : new int[] {8, 9}) {
            for (BackwardKernel family : BackwardKernel.values()) {
                int cc = major;  // the D = 256 Hopper backward switched off (it is the default on cc 9.0)
                WideBackwardChoiceTest.withWideBackward("mma", () -> assertEquals("bwd_bf16_d256_q64_kv64",
                        launchedBackward(cc, family, p, causal(p, 64, 64)), family + " cc " + cc));
            }
        }
        AttentionProblem capped = new AttentionProblem(1, 2, 2, 200, 333, 256, DType.FP16, 0.0625, 30);
        assertEquals("bwd_fp16_d256_q64_kv32_softcap", launchedBackward(9, BackwardKernel.WGMMA_WS, capped, causal(capped, 64, 32)));
    }
}
