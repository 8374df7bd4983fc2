package saw.engine.gpu;

import static saw.engine.gpu.BackwardKernelChoiceTest.causal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.attention.TileLists;
import saw.engine.mask.TileLayout;
import saw.engine.tune.Candidate;
import saw.engine.tune.GpuCandidates;

/**
 * At head dim 256, and at 64x64 at head dims 64 and 128, the backend launches the Hopper forward where it fits and the
 * mma.sync one elsewhere (fake driver, no GPU).
 */
class WideForwardChoiceTest {
    /** The forward kernel a timed run and a verification run of this problem launch. */
    private static String launchedForward(int major, ForwardKernel preferred, AttentionProblem p, TileLayout layout) {
        FakeDriver driver = new FakeDriver(8L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", major)) {
            gpu.forwardKernel(preferred);
            String timed;
            try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, Pass.FWD, 7)) {
                timed = run.kernelName();
                driver.launched.clear();
                run.runTimedMs();
                assertTrue(driver.launched.contains(timed), timed + " launched by the timed run: " + driver.launched);
            }
            driver.launched.clear();
            gpu.forward(AttentionInputs.random(p, 7, false), layout);
            assertTrue(driver.launched.contains(timed), timed + " launched by the verification run: " + driver.launched);
            return timed;
        }
    }

    @Test
    void hopperAt64x64RunsTheWarpSpecialisedD256Forwards() {
        KernelCatalogTest.withWideForward("wgmma", WideForwardChoiceTest::hopperAt64x64);
    }

    @Test
    void hopperAt64x64RunsThe128RowCtasByDefault() {
        KernelCatalogTest.withWideForward(null, () -> {
            AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
            assertEquals("fwd_wgmmapp_bf16_d256_q128_kv64", launchedForward(9, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 64)));
        });
    }

    @Test
    void headDims64And128At64x64RunThe64RowHopperForwardAndTuneOffersIt() {
        for (int d : new int[] {64, 128}) {
            AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, d, DType.BF16);
            assertEquals("fwd_wgmmapp_bf16_d" + d + "_q64_kv64", launchedForward(9, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 64)));
            AttentionProblem capped = new AttentionProblem(1, 2, 1, 200, 300, d, DType.FP16, 0.0625, 30);
            assertEquals("fwd_wgmmaws_fp16_d" + d + "_q64_kv64", launchedForward(9, ForwardKernel.WGMMA_WS, capped, causal(capped, 64, 64)));
            assertEquals("fwd_bf16_d" + d + "_q64_kv64", launchedForward(8, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 64)), "sm_80");
            assertEquals("fwd_bf16_d" + d + "_q64_kv64", launchedForward(9, ForwardKernel.MMA, p, causal(p, 64, 64)), "mma family");
            try (GpuBackend gpu = GpuBackend.open(new FakeDriver(8L << 30), new byte[64], "fake GPU", 9)) {
                List<Candidate> fwd = new GpuCandidates(gpu).candidates(p, Pass.FWD);
                KernelTiles t = new KernelTiles(64, 64);
                assertEquals(List.of(new Candidate(t, "mma"), new Candidate(t, "wgmma-ws"), new Candidate(t, "wgmma-pp")),
                        fwd.stream().filter(c -> c.tiles().equals(t)).toList(), fwd::toString);
            }
        }
    }

    @Test
    void switchedOffHopperAt64x64KeepsTheMmaSyncForward() {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
        KernelCatalogTest.withWideForward("mma", () -> assertEquals("fwd_bf16_d256_q64_kv64",
                launchedForward(9, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 64))));
    }

    private static void hopperAt64x64() {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
        assertEquals("fwd_wgmmapp_bf16_d256_q64_kv64", launchedForward(9, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 64)));
        AttentionProblem capped = new AttentionProblem(1, 2, 1, 200, 300, 256, DType.FP16, 0.0625, 30);
        assertEquals("fwd_wgmmaws_fp16_d256_q64_kv64", launchedForward(9, ForwardKernel.WGMMA_WS, capped, causal(capped, 64, 64)));
    }

    @Test
    void switchedToQ128HopperAt64x64RunsThe128RowCtasOverTheMaskCompiledAt128x64() {
        KernelCatalogTest.withWideForward("wgmma-q128", () -> {
            AttentionProblem p = AttentionProblem.of(2, 4, 1, 400, 400, 256, DType.BF16);
            TileLayout layout = causal(p, 64, 64);
            assertEquals("fwd_wgmmapp_bf16_d256_q128_kv64", launchedForward(9, ForwardKernel.WGMMA_PINGPONG, p, layout));
            AttentionProblem capped = new AttentionProblem(1, 2, 2, 200, 300, 256, DType.FP16, 0.0625, 30);
            assertEquals("fwd_wgmmaws_fp16_d256_q128_kv64", launchedForward(9, ForwardKernel.WGMMA_WS, capped, causal(capped, 64, 64)));
            assertEquals("fwd_bf16_d256_q64_kv64", launchedForward(8, ForwardKernel.WGMMA_PINGPONG, p, layout), "sm_80");
            assertEquals("fwd_bf16_d256_q64_kv32", launchedForward(9, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 32)), "64x32");
            assertEquals("fwd_bf16_d256_q64_kv64", launchedForward(9, ForwardKernel.MMA, p, layout), "mma family");

            FakeDriver driver = new FakeDriver(8L << 30);
            try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", 9)) {
                gpu.forwardKernel(ForwardKernel.WGMMA_PINGPONG);
                gpu.backwardKernel(BackwardKernel.WGMMA_WS);
                gpu.forwardBackward(AttentionInputs.random(p, 3, true), layout);
                assertEquals(2 * 4 * 4, driver.lastGrid.get("fwd_wgmmapp_bf16_d256_q128_kv64"),
                        "one CTA per 128-row q tile (ceil(400 / 128) = 4), head and batch entry");
                assertTrue(driver.launched.contains("bwd_wgmma_bf16_d256_q64_kv64"), "the backward is unchanged: " + driver.launched);
                long q128Tables = gpu.lastTables().deviceBytes();
                TileLists own = GpuBackend.forwardLists(p, layout);
                long ownBytes = 4L * (own.rowOrder().length + own.rowPtr().length + own.rowPartial().length
                        + own.rowKv().length + own.rowMask().length + own.bits().length);
                KernelCatalogTest.withWideForward("wgmma", () -> gpu.forward(AttentionInputs.random(p, 3, false), layout));
                assertEquals(ownBytes, q128Tables - gpu.lastTables().deviceBytes(),
                        "the forward's own row tables, built at 128x64, are uploaded beside the layout's");
            }
        });
    }

    @Test
    void the128RowForwardGetsTensorMapsOfKAndVAndNoOtherForwardDoes() {
        AttentionProblem gqa = new AttentionProblem(3, 8, 2, 200, 333, 256, DType.FP16, 0.0625, 0);
        TileLayout layout = causal(gqa, 64, 64);
        KernelCatalogTest.withWideForward(null, () -> {
            FakeDriver driver = new FakeDriver(8L << 30);
            try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", 9)) {
                gpu.forwardKernel(ForwardKernel.WGMMA_PINGPONG);
                gpu.forward(AttentionInputs.random(gqa, 5, false), layout);
                assertEquals(List.of("fwd_wgmmapp_fp16_d256_q128_kv64"),
                        driver.launched.stream().filter(k -> k.startsWith("fwd_")).toList());
                assertEquals(2, driver.tileMaps.size(), "one map of K and one of V: " + driver.tileMaps);
                TileMap expected = new TileMap(false, new long[] {256, 333, 3 * 2}, new long[] {512, 512L * 333},
                        new int[] {64, 64, 1});
                for (FakeDriver.MapRequest r : driver.tileMaps) {
                    assertEquals(expected, r.map(), "[batch x kv heads][kv rows][head dim], 64 x 64 boxes");
                }
                assertTrue(driver.tileMaps.get(0).base() != driver.tileMaps.get(1).base(), "K and V are different buffers");
                try (AttentionBackend.PreparedRun run = gpu.prepare(gqa, layout, Pass.FWD, 7)) {
                    for (int rep = 0; rep < 8; rep++) {
                        run.runTimedMs();
                    }
                    int encoded = driver.tileMaps.size();
                    assertTrue(encoded > 2, "the timed run's input sets have their own maps");
                    run.runTimedMs();
                    run.runTimedMs();
                    assertEquals(encoded, driver.tileMaps.size(), "a buffer's maps are encoded once, not inside every timed launch");
                }
            }
        });
        KernelCatalogTest.withWideForward("wgmma", () -> {
            FakeDriver driver = new FakeDriver(8L << 30);
            try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", 9)) {
                gpu.forwardKernel(ForwardKernel.WGMMA_PINGPONG);
                gpu.forward(AttentionInputs.random(gqa, 5, false), layout);
                assertTrue(driver.launched.contains("fwd_wgmmapp_fp16_d256_q64_kv64"), driver.launched::toString);
                assertEquals(List.of(), driver.tileMaps, "the 64-row forward loads with cp.async");
            }
        });
    }

    @Test
    void elsewhereHeadDim256KeepsTheMmaSyncForward() {
        KernelCatalogTest.withWideForward("wgmma", WideForwardChoiceTest::elsewhere);
    }

    private static void elsewhere() {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
        assertEquals("fwd_bf16_d256_q64_kv64", launchedForward(8, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 64)), "sm_80");
        assertEquals("fwd_bf16_d256_q64_kv32", launchedForward(9, ForwardKernel.WGMMA_PINGPONG, p, causal(p, 64, 32)), "64x32");
        assertEquals("fwd_bf16_d256_q64_kv64", launchedForward(9, ForwardKernel.MMA, p, causal(p, 64, 64)), "mma family");
    }

    @Test
    void tunerOffersTheD256HopperForwardsOnlyWhereTheyRun() {
        KernelCatalogTest.withWideForward(null, () -> candidates(true));
        KernelCatalogTest.withWideForward("wgmma", () -> candidates(true));
        KernelCatalogTest.withWideForward("mma", () -> candidates(false));
    }

    private static void candidates(boolean switchedOn) {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
        for (int major : new int[] {8, 9}) {
            try (GpuBackend gpu = GpuBackend.open(new FakeDriver(8L << 30), new byte[64], "fake GPU", major)) {
                List<Candidate> fwd = new GpuCandidates(gpu).candidates(p, Pass.FWD);
                List<Candidate> bwd = new GpuCandidates(gpu).candidates(p, Pass.BWD);
                KernelTiles t = new KernelTiles(64, 64);
                assertEquals(switchedOn && major == 9, fwd.contains(new Candidate(t, "wgmma-pp")), "cc " + major + ": " + fwd);
                assertEquals(switchedOn && major == 9, fwd.contains(new Candidate(t, "wgmma-ws")), "cc " + major + ": " + fwd);
                assertTrue(fwd.stream().allMatch(c -> List.of("mma", "wgmma-ws", "wgmma-pp").contains(c.family())), fwd::toString);
                assertTrue(fwd.stream().noneMatch(c -> !c.tiles().equals(t) && !c.family().equals("mma")), fwd::toString);
                assertTrue(bwd.stream().allMatch(c -> c.family().equals("mma") || c.tiles().equals(t)),
                        "the D = 256 Hopper backward runs at 64x64 only: " + bwd);
            }
        }
    }
}
