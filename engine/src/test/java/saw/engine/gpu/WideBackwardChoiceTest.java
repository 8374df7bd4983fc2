package saw.engine.gpu;

import static saw.engine.gpu.BackwardKernelChoiceTest.causal;
import static saw.engine.gpu.BackwardKernelChoiceTest.launchedBackward;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;
import saw.engine.tune.Candidate;
import saw.engine.tune.GpuCandidates;

/**
 * At head dim 256 the backend launches the Hopper backward (bwd_wgmma_*_d256_q64_kv64) where it fits and the switch
 * does not say mma, and the mma.sync one (two CTAs per kv tile) elsewhere (fake driver, no GPU).
 */
class WideBackwardChoiceTest {
    static void withWideBackward(String value, Runnable body) {
        KernelCatalogTest.withProperty(KernelCatalog.WIDE_BACKWARD.property(), value, body);
    }

    @Test
    void switchedOnHopperAt64x64RunsTheD256WgmmaBackwardForTheHopperFamily() {
        withWideBackward("wgmma", () -> {
            AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
            for (BackwardKernel family : BackwardKernel.hopper()) {
                assertEquals("bwd_wgmma_bf16_d256_q64_kv64", launchedBackward(9, family, p, causal(p, 64, 64)), family.label());
            }
            AttentionProblem capped = new AttentionProblem(1, 2, 1, 200, 300, 256, DType.FP16, 0.0625, 30);
            assertEquals("bwd_wgmma_fp16_d256_q64_kv64_softcap",
                    launchedBackward(9, BackwardKernel.WGMMA_WS, capped, causal(capped, 64, 64)));
        });
    }

    @Test
    void theD256HopperBackwardGetsTensorMapsOfQAndDoAndTheMmaSyncOneNone() {
        AttentionProblem gqa = new AttentionProblem(2, 6, 3, 333, 200, 256, DType.BF16, 0.0625, 0);
        TileLayout layout = causal(gqa, 64, 64);
        TileMap qdo = new TileMap(true, new long[] {256, 333, 2 * 6}, new long[] {512, 512L * 333}, new int[] {64, 64, 1});
        for (String setting : new String[] {"wgmma", "mma"}) {
            withWideBackward(setting, () -> {
                FakeDriver driver = new FakeDriver(8L << 30);
                try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", 9)) {
                    gpu.forwardKernel(ForwardKernel.WGMMA_PINGPONG);
                    gpu.backwardKernel(BackwardKernel.WGMMA_WS);
                    gpu.forwardBackward(saw.engine.attention.AttentionInputs.random(gqa, 3, true), layout);
                    List<TileMap> maps = driver.tileMaps.stream().map(FakeDriver.MapRequest::map).toList();
                    long backwardMaps = maps.stream().filter(qdo::equals).count();
                    assertEquals(setting.equals("wgmma") ? 2 : 0, backwardMaps, setting + ": " + maps);
                    assertTrue(maps.stream().allMatch(m -> m.equals(qdo) || m.dims()[2] == 2 * 3),
                            "otherwise only the forward's maps of K and V ([batch x kv heads] heads): " + maps);
                }
            });
        }
    }

    @Test
    void switchedOffOrElsewhereHeadDim256KeepsTheMmaSyncBackward() {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
        for (String off : new String[] {"mma", " MMA "}) {
            withWideBackward(off, () -> assertEquals("bwd_bf16_d256_q64_kv64",
                    launchedBackward(9, BackwardKernel.WGMMA_WS, p, causal(p, 64, 64)), "setting " + off));
        }
        withWideBackward("wgmma", () -> {
            assertEquals("bwd_bf16_d256_q64_kv64", launchedBackward(8, BackwardKernel.WGMMA_WS, p, causal(p, 64, 64)), "sm_80");
            assertEquals("bwd_bf16_d256_q64_kv32", launchedBackward(9, BackwardKernel.WGMMA_WS, p, causal(p, 64, 32)), "64x32");
            assertEquals("bwd_bf16_d256_q64_kv64", launchedBackward(9, BackwardKernel.MMA, p, causal(p, 64, 64)), "mma family");
        });
        AttentionProblem d128 = AttentionProblem.of(1, 4, 2, 384, 384, 128, DType.BF16);
        withWideBackward("wgmma", () -> assertEquals("bwd_wgmmaws_bf16_d128_q128_kv128",
                launchedBackward(9, BackwardKernel.WGMMA_WS, d128, causal(d128, 128, 128)), "D = 128 unaffected"));
    }

    @Test
    void aBadSwitchIsNamed() {
        AttentionProblem p = AttentionProblem.of(1, 2, 1, 512, 512, 256, DType.BF16);
        withWideBackward("on", () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> KernelCatalog.backwardFor(p, new KernelTiles(64, 64), 8, BackwardKernel.WGMMA_WS, 9));
            assertEquals("-Dsaw.kernel.bwd256=on is not a head dim 256 backward kernel family (mma or wgmma)", e.getMessage());
        });
    }

    @Test
    void launchShapeIsOneCtaOf256ThreadsPerKvTileWithinTheSharedMemoryLimit() {
        withWideBackward("wgmma", () -> {
            AttentionProblem p = new AttentionProblem(2, 8, 2, 1000, 1500, 256, DType.BF16, 0.0625, 30);
            LaunchShape s = KernelCatalog.backwardFor(p, new KernelTiles(64, 64), 24, BackwardKernel.WGMMA_WS, 9);
            assertEquals("bwd_wgmma_bf16_d256_q64_kv64_softcap", s.kernel());
            assertEquals(2L * 2 * 24, s.grid(), "one CTA per (kv tile, kv head, batch): no column split");
            assertEquals(256, s.block());
            // K, V, two Q and dO stages (64 x 256), P^T and dS^T (64 x 64), the fp32 S^T / dP^T exchange, two LSE/Dsum
            // stages, the two stages' "step landed" mbarriers, the count of warps that stored a dQ tile's rows, alignment
            assertEquals((6 * 64 * 256 + 2 * 64 * 64) * 2 + 64 * 64 * 4 + 4 * 64 * 4 + 2 * 8 + 4 + 1024, s.sharedBytes());
            assertTrue(s.sharedBytes() <= 227 * 1024, "fits Hopper's opt-in limit");
            LaunchShape mma = KernelCatalog.backwardFor(p, new KernelTiles(64, 64), 24, BackwardKernel.MMA, 9);
            assertEquals(2 * s.grid(), mma.grid(), "the mma.sync backward splits the columns over two CTAs");
        });
    }

    @Test
    void aSplitColumnLaunchesOneCtaPerEntryAndItsPartsAreAdded() {
        // the sink column is far longer than the others, so the backward walks it in parts (TileLists#colLaunch);
        // the case bench/gpu/d256-bwd-wgmma.sh verifies on the H200
        AttentionProblem p = AttentionProblem.of(1, 2, 1, 8192, 8192, 256, DType.BF16);
        TileLayout layout = BoundMask.bind(Mask.And.of(new Mask.Causal(0), Mask.Or.of(new Mask.Sinks(4),
                new Mask.SlidingWindow(512, 0))), new Dims(8192, 8192, 1, 2)).compile(64, 64);
        for (String setting : new String[] {"wgmma", "mma"}) {
            withWideBackward(setting, () -> {
                FakeDriver driver = new FakeDriver(8L << 30);
                try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", 9)) {
                    gpu.backwardKernel(BackwardKernel.WGMMA_WS);
                    try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, Pass.BWD, 3)) {
                        run.runTimedMs();
                        GpuBackend.TableCost tables = gpu.lastTables();
                        assertTrue(tables.splitColumns() > 0, tables.toString());
                        assertTrue(driver.launched.contains("bwd_parts_bf16"), driver.launched::toString);
                        long entries = 8192 / 64 - tables.splitColumns() + tables.columnParts();
                        String kernel = setting.equals("wgmma") ? "bwd_wgmma_bf16_d256_q64_kv64" : "bwd_bf16_d256_q64_kv64";
                        long ctas = setting.equals("wgmma") ? entries : 2 * entries;
                        assertEquals(ctas, (long) driver.lastGrid.get(kernel), kernel + " " + tables);
                    }
                }
            });
        }
    }

    @Test
    void tunerOffersTheD256HopperBackwardOnlyWhereItRuns() {
        withWideBackward("wgmma", () -> candidates(true));
        withWideBackward(null, () -> candidates(true));
        withWideBackward("mma", () -> candidates(false));
    }

    private static void candidates(boolean switchedOn) {
        AttentionProblem p = AttentionProblem.of(1, 4, 2, 320, 320, 256, DType.BF16);
        for (int major : new int[] {8, 9}) {
            try (GpuBackend gpu = GpuBackend.open(new FakeDriver(8L << 30), new byte[64], "fake GPU", major)) {
                List<Candidate> bwd = new GpuCandidates(gpu).candidates(p, Pass.BWD);
                KernelTiles t = new KernelTiles(64, 64);
                assertEquals(switchedOn && major == 9, bwd.contains(new Candidate(t, "wgmma-ws")),
                        "the family that runs it: cc " + major + ": " + bwd);
                assertTrue(bwd.stream().noneMatch(c -> !c.tiles().equals(t) && !c.family().equals("mma")), bwd::toString);
                assertEquals(switchedOn && major == 9 ? 1 : 0, bwd.stream().filter(c -> !c.family().equals("mma")).count(),
                        "one candidate for the one D = 256 kernel: " + bwd);
            }
        }
    }
}
