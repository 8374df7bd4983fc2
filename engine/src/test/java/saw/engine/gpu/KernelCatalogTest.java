package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.attention.TileLists;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;

class KernelCatalogTest {
    /** Hopper's opt-in limit per block; sm_80 allows 163 KB, which every shape must fit too. */
    private static final int SM80_SHARED_LIMIT = 163 * 1024;

    @Test
    void forwardShapeIsOneBlockPerQTileHeadAndBatchEntry() {
        AttentionProblem p = AttentionProblem.of(4, 16, 4, 8192, 8192, 128, DType.BF16);
        LaunchShape s = KernelCatalog.forward(p, new KernelTiles(128, 64), 64);
        assertEquals("fwd_bf16_d128_q128_kv64", s.kernel());
        assertEquals(4L * 16 * 64, s.grid());
        assertEquals(128, s.block(), "two m16 blocks per warp: 4 warps for 128 rows");
        assertEquals((128 * 128 + 4 * 64 * 128) * 2, s.sharedBytes());
        LaunchShape wide = KernelCatalog.forward(p, new KernelTiles(128, 128), 64);
        assertEquals(256, wide.block(), "kv 128 keeps one m16 block per warp");
        assertEquals(128, KernelCatalog.forward(p, new KernelTiles(64, 32), 128).block());
    }

    @Test
    void backwardShapeIsOneBlockPerKvTileKvHeadAndBatchEntry() {
        AttentionProblem p = new AttentionProblem(2, 8, 2, 1000, 3000, 64, DType.FP16, 0.1, 30);
        LaunchShape s = KernelCatalog.backward(p, new KernelTiles(64, 128), 24);
        assertEquals("bwd_fp16_d64_q64_kv128_softcap", s.kernel());
        assertEquals(2L * 2 * 24, s.grid());
        assertEquals(256, s.block());
        assertEquals("bwd_pre_fp16_d64", KernelCatalog.backwardPre(p).kernel());
        assertEquals((2L * 8 * 1000 + 7) / 8, KernelCatalog.backwardPre(p).grid());
        assertEquals((2L * 8 * 1000 * 64 / 2 + 255) / 256, KernelCatalog.backwardDq(p).grid());
        // the permuted accumulator of the tile-adding backwards: a thread per 16 values
        LaunchShape ws = new LaunchShape(BackwardKernel.WGMMA_WS.kernelPrefix() + "fp16_d64_q128_kv128", 132, 384, 0);
        assertEquals("bwd_dq_perm_fp16", KernelCatalog.backwardDq(p, ws).kernel());
        assertEquals((2L * 8 * 1000 * 64 / 16 + 255) / 256, KernelCatalog.backwardDq(p, ws).grid());
        assertEquals(256, KernelCatalog.backwardDq(p, ws).block());
    }

    @Test
    void everyShapeFitsTheSharedMemoryOfAnAmpereBlock() {
        for (int d : KernelCatalog.HEAD_DIMS) {
            for (int bq : KernelCatalog.TILE_Q) {
                for (int bkv : KernelCatalog.TILE_KV) {
                    AttentionProblem p = AttentionProblem.of(1, 1, 1, 512, 512, d, DType.BF16);
                    KernelTiles t = new KernelTiles(bq, bkv);
                    assertTrue(KernelCatalog.forward(p, t, 4).sharedBytes() <= SM80_SHARED_LIMIT, t + " d" + d);
                    assertTrue(KernelCatalog.backward(p, t, 4).sharedBytes() <= SM80_SHARED_LIMIT, t + " d" + d);
                }
            }
        }
    }

    @Test
    void unsupportedHeadDimsAndTilesAreRefusedWithASentence() {
        AttentionProblem p96 = AttentionProblem.of(1, 1, 1, 64, 64, 96, DType.BF16);
        assertEquals("head dim 96 is not supported by the GPU kernels (64, 128 or 256)",
                KernelCatalog.unsupported(p96, new KernelTiles(64, 64)));
        AttentionProblem p = AttentionProblem.of(1, 1, 1, 64, 64, 64, DType.BF16);
        assertEquals("tile 32x64 is not supported by the GPU kernels (q 64 or 128, kv 32, 64 or 128)",
                KernelCatalog.unsupported(p, new KernelTiles(32, 64)));
        assertNull(KernelCatalog.unsupported(p, new KernelTiles(128, 32)));
    }

    @Test
    void headDim256RunsBothPassesAtQ64TilesOnly() {
        AttentionProblem p = AttentionProblem.of(1, 2, 1, 64, 64, 256, DType.FP16);
        assertNull(KernelCatalog.unsupported(p, new KernelTiles(64, 32)));
        assertNull(KernelCatalog.unsupported(p, new KernelTiles(64, 64)));
        for (KernelTiles t : List.of(new KernelTiles(128, 64), new KernelTiles(128, 128), new KernelTiles(64, 128))) {
            assertEquals("tile " + t + " is not supported by the GPU kernels at head dim 256 (64x32 or 64x64, forward and backward)",
                    KernelCatalog.unsupported(p, t));
        }
        assertEquals(false, KernelCatalog.wgmmaFits(p, KernelCatalog.WGMMA_TILES, KernelCatalog.WGMMA_MAJOR));
        assertEquals("fwd_fp16_d256_q64_kv64", KernelCatalog.forward(p, new KernelTiles(64, 64), 1).kernel());
        assertTrue(KernelCatalog.allNames().containsAll(List.of("fwd_fp16_d256_q64_kv64", "bwd_fp16_d256_q64_kv64",
                "bwd_bf16_d256_q64_kv32_softcap", "bwd_pre_bf16_d256", "bwd_pre_fp16_d256")));
    }

    /** Runs {@code body} with -Dsaw.kernel.fwd256 set to {@code value} (null: unset), restoring it after. */
    static void withWideForward(String value, Runnable body) {
        withProperty(KernelCatalog.WIDE_FORWARD.property(), value, body);
    }

    /** Runs {@code body} with the system property {@code name} set to {@code value} (null: unset), restoring it after. */
    static void withProperty(String name, String value, Runnable body) {
        String before = System.getProperty(name);
        try {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
            body.run();
        } finally {
            if (before == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, before);
            }
        }
    }

    @Test
    void persistentForwardReadsRowSpansWhereEveryTileHasThemUnlessTheSettingSaysBits() {
        AttentionProblem p = AttentionProblem.of(1, 2, 1, 1000, 1000, 128, DType.BF16);
        TileLists docs = TileLists.of(p, BoundMask.bind(Mask.And.of(new Mask.Causal(0), Mask.Documents.ofLengths(300, 700)),
                new Dims(1000, 1000, 1, 2)).compile(128, 128));
        TileLists dilated = TileLists.of(p, BoundMask.bind(new Mask.Dilated(2), new Dims(1000, 1000, 1, 2)).compile(128, 128));
        withProperty("saw.kernel.partial", null, () -> {
            assertTrue(KernelCatalog.rowSpans(docs));
            assertFalse(KernelCatalog.rowSpans(dilated), "a dilated row is many runs of keys");
        });
        withProperty("saw.kernel.partial", "bits", () -> assertFalse(KernelCatalog.rowSpans(docs)));
        withProperty("saw.kernel.partial", "intervals", () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KernelCatalog.rowSpans(docs));
            assertEquals("-Dsaw.kernel.partial=intervals is not a PARTIAL-tile mask kernel family (spans or bits)",
                    e.getMessage());
        });
        Object[] args = {1, 2f};
        LaunchShape bitsKernel = KernelCatalog.forwardWgmma(p, 8, ForwardKernel.WGMMA_PINGPONG, false);
        assertEquals(0L, KernelCatalog.withSpans(args, bitsKernel, null)[2], "a null pointer for the bit-tile kernels");
        LaunchShape spansKernel = KernelCatalog.forwardWgmma(p, 8, ForwardKernel.WGMMA_PINGPONG, true);
        assertThrows(IllegalStateException.class, () -> KernelCatalog.withSpans(args, spansKernel, null));
    }

    @Test
    void headDim256HopperForwardIsTheDefaultOnHopperAndABadSwitchIsNamed() {
        AttentionProblem p = AttentionProblem.of(1, 2, 1, 512, 512, 256, DType.BF16);
        KernelTiles t = new KernelTiles(64, 64);
        for (String off : new String[] {"mma", " MMA "}) {
            withWideForward(off, () -> assertEquals("fwd_bf16_d256_q64_kv64",
                    KernelCatalog.forwardFor(p, t, 8, ForwardKernel.WGMMA_PINGPONG, 9, false).kernel(), "setting " + off));
        }
        for (String on : new String[] {null, "wgmma"}) {
            withWideForward(on, () -> assertEquals("fwd_wgmmapp_bf16_d256_q64_kv64",
                    KernelCatalog.forwardFor(p, t, 8, ForwardKernel.WGMMA_PINGPONG, 9, false).kernel(), "setting " + on));
        }
        withWideForward("on", () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> KernelCatalog.forwardFor(p, t, 8, ForwardKernel.WGMMA_PINGPONG, 9, false));
            assertEquals("-Dsaw.kernel.fwd256=on is not a head dim 256 forward kernel family (mma, wgmma or wgmma-q128)",
                    e.getMessage());
        });
    }

    @Test
    void headDim256Q128ForwardShapeAndNamesAndTheBackwardSwitchRefusesIt() {
        AttentionProblem p = new AttentionProblem(2, 8, 2, 1000, 1500, 256, DType.FP16, 0.0625, 30);
        KernelTiles t = new KernelTiles(64, 64);
        withWideForward("wgmma-q128", () -> {
            assertTrue(KernelCatalog.wideQ128Fits(p, t, ForwardKernel.WGMMA_PINGPONG, 9));
            assertTrue(KernelCatalog.wideQ128Fits(p, t, ForwardKernel.WGMMA_WS, 9));
            assertFalse(KernelCatalog.wideQ128Fits(p, t, ForwardKernel.WGMMA_PINGPONG, 8), "sm_90a code: cc 9.0 only");
            assertFalse(KernelCatalog.wideQ128Fits(p, new KernelTiles(64, 32), ForwardKernel.WGMMA_PINGPONG, 9));
            assertFalse(KernelCatalog.wideQ128Fits(p, t, ForwardKernel.MMA, 9));
            assertEquals("fwd_wgmmapp_fp16_d256_q64_kv64", KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_PINGPONG, 9, false).kernel(),
                    "callers holding only the 64x64 lists (ring parts) keep the 64-row kernel");
        });
        withWideForward("wgmma", () -> assertFalse(KernelCatalog.wideQ128Fits(p, t, ForwardKernel.WGMMA_PINGPONG, 9),
                "wgmma keeps the 64-row CTAs"));
        withWideForward(null, () -> assertTrue(KernelCatalog.wideQ128Fits(p, t, ForwardKernel.WGMMA_PINGPONG, 9), "on by default"));
        LaunchShape pp = KernelCatalog.forwardWideQ128(p, 8, ForwardKernel.WGMMA_PINGPONG);
        assertEquals("fwd_wgmmapp_fp16_d256_q128_kv64", pp.kernel());
        assertEquals(2L * 8 * 8, pp.grid(), "one CTA per 128-row q tile, head and batch entry");
        assertEquals(384, pp.block(), "a producer and two consumer warpgroups");
        // Q (128 x 256), two stages of K and V (64 x 256), alignment, four barriers per stage
        assertEquals((128 * 256 + 4 * 64 * 256) * 2 + 1024 + 8 * 8, pp.sharedBytes());
        assertTrue(pp.sharedBytes() <= 227 * 1024, "fits Hopper's opt-in limit");
        LaunchShape ws = KernelCatalog.forwardWideQ128(p, 8, ForwardKernel.WGMMA_WS);
        assertEquals("fwd_wgmmaws_fp16_d256_q128_kv64", ws.kernel());
        assertEquals(384, ws.block(), "two consumers own 64 rows each, without turns");
        for (DType dt : DType.values()) {
            for (ForwardKernel family : new ForwardKernel[] {ForwardKernel.WGMMA_WS, ForwardKernel.WGMMA_PINGPONG}) {
                String name = KernelCatalog.forwardWideQ128Name(dt, family);
                assertTrue(KernelCatalog.allNames().contains(name), name + " is in the catalog");
            }
        }
        withProperty(KernelCatalog.WIDE_BACKWARD.property(), "wgmma-q128", () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, KernelCatalog.WIDE_BACKWARD::configured);
            assertEquals("-Dsaw.kernel.bwd256=wgmma-q128 is not a head dim 256 backward kernel family (mma or wgmma)", e.getMessage());
        });
    }

    @Test
    void headDim256ForwardRunsTheWarpSpecialisedWgmmaFamiliesOnHopperAt64x64Only() {
        withWideForward("wgmma", KernelCatalogTest::wideForwardShapes);
    }

    private static void wideForwardShapes() {
        AttentionProblem p = new AttentionProblem(2, 8, 2, 1000, 1500, 256, DType.BF16, 0.0625, 30);
        KernelTiles t = new KernelTiles(64, 64);
        LaunchShape pp = KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_PINGPONG, 9, false);
        assertEquals("fwd_wgmmapp_bf16_d256_q64_kv64", pp.kernel());
        assertEquals(2L * 8 * 16, pp.grid(), "one CTA per q tile, head and batch entry");
        assertEquals(384, pp.block(), "a producer and two consumer warpgroups");
        // Q (64 x 256), three stages of K and V (64 x 256), alignment, a Q barrier and four per stage
        assertEquals((64 * 256 + 6 * 64 * 256) * 2 + 1024 + 13 * 8, pp.sharedBytes());
        assertTrue(pp.sharedBytes() <= 227 * 1024, "fits Hopper's opt-in limit");
        LaunchShape ws = KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_WS, 9, false);
        assertEquals("fwd_wgmmaws_bf16_d256_q64_kv64", ws.kernel());
        assertEquals(256, ws.block(), "a producer and one consumer warpgroup");
        assertEquals(pp.sharedBytes(), ws.sharedBytes());
        assertEquals("fwd_bf16_d256_q64_kv64", KernelCatalog.forwardFor(p, t, 16, ForwardKernel.MMA, 9, false).kernel(), "mma");
        for (int major : new int[] {8, 10}) {
            assertEquals("fwd_bf16_d256_q64_kv64", KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_PINGPONG, major, false).kernel(),
                    "the sm_90a code runs on cc 9.0 only, not " + major);
        }
        assertEquals("fwd_bf16_d256_q64_kv32",
                KernelCatalog.forwardFor(p, new KernelTiles(64, 32), 16, ForwardKernel.WGMMA_PINGPONG, 9, false).kernel());
        AttentionProblem p128 = AttentionProblem.of(1, 2, 1, 512, 512, 128, DType.FP16);
        assertEquals("fwd_wgmmapp_fp16_d128_q64_kv64", KernelCatalog.forwardFor(p128, t, 8, ForwardKernel.WGMMA_PINGPONG, 9, false).kernel(),
                "the 64-row kernel runs D = 128 too");
        for (DType dt : DType.values()) {
            for (ForwardKernel family : new ForwardKernel[] {ForwardKernel.WGMMA_WS, ForwardKernel.WGMMA_PINGPONG}) {
                AttentionProblem q = AttentionProblem.of(1, 2, 1, 512, 512, 256, dt);
                String name = KernelCatalog.forwardFor(q, t, 8, family, 9, false).kernel();
                assertTrue(KernelCatalog.allNames().contains(name), name + " is in the catalog");
            }
        }
    }

    @Test
    void the64RowHopperForwardRunsHeadDims64And128At64x64WithTheWarpSpecialisedFamiliesOnly() {
        KernelTiles t = new KernelTiles(64, 64);
        for (int d : new int[] {64, 128}) {
            AttentionProblem p = new AttentionProblem(3, 8, 2, 1000, 1500, d, DType.BF16, 0.0625, 30);
            LaunchShape pp = KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_PINGPONG, 9, false);
            assertEquals("fwd_wgmmapp_bf16_d" + d + "_q64_kv64", pp.kernel());
            assertEquals(3L * 8 * 16, pp.grid(), "one CTA per q tile, head and batch entry");
            assertEquals(384, pp.block(), "a producer and two consumer warpgroups");
            assertFalse(pp.persistent());
            // Q (64 x d), four stages of K and V (64 x d), alignment, a Q barrier and four per stage
            assertEquals((64 * d + 8 * 64 * d) * 2 + 1024 + 17 * 8, pp.sharedBytes());
            LaunchShape ws = KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_WS, 9, false);
            assertEquals("fwd_wgmmaws_bf16_d" + d + "_q64_kv64", ws.kernel());
            assertEquals(256, ws.block(), "a producer and one consumer warpgroup");
            // two stages, so that two CTAs fit an SM's 228 KB (each also holds 1 KB the system reserves)
            assertEquals((64 * d + 4 * 64 * d) * 2 + 1024 + 9 * 8, ws.sharedBytes());
            assertTrue(2 * (ws.sharedBytes() + 1024) <= 228 * 1024, "two CTAs per SM at D = " + d);
            assertEquals("fwd_bf16_d" + d + "_q64_kv64", KernelCatalog.forwardFor(p, t, 16, ForwardKernel.MMA, 9, false).kernel(), "mma");
            assertEquals("fwd_bf16_d" + d + "_q64_kv64", KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_PINGPONG, 8, false).kernel(),
                    "sm_90a code: cc 9.0 only");
            for (KernelTiles other : new KernelTiles[] {new KernelTiles(64, 32), new KernelTiles(64, 128), new KernelTiles(128, 64)}) {
                assertFalse(KernelCatalog.q64WgmmaFits(p, other, ForwardKernel.WGMMA_PINGPONG, 9), other.toString());
            }
            assertFalse(KernelCatalog.wideQ128Fits(p, t, ForwardKernel.WGMMA_PINGPONG, 9), "128-row CTAs are D = 256's");
            withWideForward("mma", () -> assertEquals("fwd_wgmmaws_bf16_d" + d + "_q64_kv64",
                    KernelCatalog.forwardFor(p, t, 16, ForwardKernel.WGMMA_WS, 9, false).kernel(), "the D = 256 switch is D = 256's"));
            for (DType dt : DType.values()) {
                for (ForwardKernel family : new ForwardKernel[] {ForwardKernel.WGMMA_WS, ForwardKernel.WGMMA_PINGPONG}) {
                    String name = KernelCatalog.forwardQ64WgmmaName(dt, d, family);
                    assertTrue(KernelCatalog.allNames().contains(name), name + " is in the catalog");
                }
            }
        }
    }

    /** The D = 256 backward with the Hopper one switched off (-Dsaw.kernel.bwd256=mma; it is the default on cc 9.0). */
    private static LaunchShape mmaSyncWideBackward(AttentionProblem p, BackwardKernel family, int major) {
        LaunchShape[] s = new LaunchShape[1];
        WideBackwardChoiceTest.withWideBackward("mma",
                () -> s[0] = KernelCatalog.backwardFor(p, new KernelTiles(64, 64), 24, family, major));
        return s[0];
    }

    @Test
    void headDim256BackwardSplitsTheOutputColumnsOverTwoCtasPerKvTile() {
        AttentionProblem p = AttentionProblem.of(2, 8, 2, 1000, 1500, 256, DType.BF16);
        for (int major : new int[] {8, 9}) {
            for (BackwardKernel family : BackwardKernel.values()) {
                LaunchShape s = mmaSyncWideBackward(p, family, major);
                assertEquals("bwd_bf16_d256_q64_kv64", s.kernel(), family + " on cc " + major);
                assertEquals(2L * 2 * 24 * 2, s.grid(), "batch x kv heads x kv tiles x 2 column halves");
                assertEquals(128, s.block());
                // K, V (64 x 256), two stages of Q and dO (32 x 256), dS^T (64 x 64), two stages of LSE and Dsum (32)
                assertEquals((2 * 64 * 256 + 4 * 32 * 256 + 64 * 64) * 2 + 4 * 32 * 4, s.sharedBytes());
                assertTrue(s.sharedBytes() <= SM80_SHARED_LIMIT);
            }
        }
        LaunchShape narrow = KernelCatalog.backward(new AttentionProblem(2, 8, 2, 1000, 1500, 256, DType.BF16, 0.0625, 30), new KernelTiles(64, 32), 47);
        assertEquals("bwd_bf16_d256_q64_kv32_softcap", narrow.kernel());
        assertEquals(2L * 2 * 47 * 2, narrow.grid());
        assertEquals(64, narrow.block());
        assertEquals("bwd_pre_bf16_d256", KernelCatalog.backwardPre(p).kernel());
        // below head dim 256 nothing changes: one CTA per kv tile, 64-row steps
        AttentionProblem p128 = AttentionProblem.of(2, 8, 2, 1000, 1500, 128, DType.BF16);
        LaunchShape s128 = KernelCatalog.backward(p128, new KernelTiles(128, 64), 24);
        assertEquals(2L * 2 * 24, s128.grid());
        assertEquals((2 * 64 * 128 + 4 * 64 * 128 + 64 * 64) * 2 + 4 * 64 * 4, s128.sharedBytes());
    }

    @Test
    void recommendedTilesAreSupportedAndFollowTheGpu() {
        AttentionProblem p = AttentionProblem.of(1, 1, 1, 64, 64, 128, DType.BF16);
        assertEquals(new KernelTiles(128, 64), KernelCatalog.recommended(Pass.FWD, 8), "mma.sync forward");
        assertEquals(new KernelTiles(128, 128), KernelCatalog.recommended(Pass.BWD, 8));
        assertEquals(new KernelTiles(128, 128), KernelCatalog.recommended(Pass.FWD, 9), "the wgmma kernels' tile");
        assertEquals(new KernelTiles(128, 128), KernelCatalog.recommended(Pass.BWD, 9));
        for (Pass pass : Pass.values()) {
            for (int major : new int[] {8, 9, 10}) {
                assertNull(KernelCatalog.unsupported(p, KernelCatalog.recommended(pass, major)));
            }
        }
    }

    @Test
    void catalogNamesEveryKernelOnce() {
        List<String> names = KernelCatalog.allNames();
        // per dtype and head dim 64 / 128: 6 tiles x (forward, backward, backward softcap), the Hopper forwards (ws, pp)
        // (and their row-span kernels) and bwd_pre, the Hopper backward (softcap or not); then
        assertEquals(2 * 2 * 6 * 3 + 2 * 2 * (3 + 2) + 2 * 3 + 2 * 2 * 2 + 1 + 2 * 2 + 2 * 5 + 2 + 2 * 2 + 2 * 2 + 2 * 2 + 2 + 2 * 2 * 2, names.size()); // + bwd_dq_perm per dtype, sink_apply per dtype, sink_grad, bwd_parts per dtype, D=256 forwards; D=256 backwards (2 tiles x softcap or not) and bwd_pre per dtype; D=256 Hopper forwards (ws, pp) per dtype; D=256 Hopper backward (softcap or not) per dtype; D=256 Hopper forwards with 128-row CTAs (ws, pp) per dtype; 64-row Hopper forwards (ws, pp) at D = 64 and 128 per dtype
        assertTrue(names.contains("fwd_wgmmapp_bf16_d256_q128_kv64"), "the D = 256 Hopper forward with 128-row CTAs");
        assertTrue(names.contains("bwd_wgmmaws_fp16_d128_q128_kv128_softcap"));
        assertTrue(names.contains("bwd_wgmmaws_bf16_d64_q128_kv128"));
        assertTrue(names.contains("bwd_dq_perm_fp16"), "dQ from the warp-specialised backward's permuted accumulator");
        assertTrue(names.contains("bwd_wgmma_fp16_d256_q64_kv64_softcap"), "the D = 256 Hopper backward");
        assertTrue(names.contains("bwd_parts_fp16"));
        assertTrue(names.stream().noneMatch(n -> n.startsWith("bwd_wgmmadq_")), "the bulk dQ is folded into bwd_wgmmaws_");
        assertTrue(names.stream().filter(n -> n.matches("fwd_wgmma.*_q128_kv128"))
                .allMatch(n -> n.startsWith("fwd_wgmmaws_") || n.startsWith("fwd_wgmmapp_")), "the 128x128 Hopper forwards: ws, pp");
        assertTrue(names.stream().filter(n -> n.matches("bwd_wgmma.*_q128_kv128(_softcap)?"))
                .allMatch(n -> n.startsWith("bwd_wgmmaws_")), "the 128x128 Hopper backward: ws");
        assertTrue(names.contains("fwd_wgmmaws_fp16_d128_q128_kv128"));
        assertTrue(names.contains("fwd_wgmmapp_bf16_d64_q128_kv128"));
        assertTrue(names.contains("fwd_wgmmapp_bf16_d64_q128_kv128_spans"));
        assertTrue(names.contains("fwd_wgmmaws_fp16_d128_q128_kv128_spans"));
        assertEquals(names.size(), new HashSet<>(names).size());
        assertTrue(names.contains("bwd_bf16_d128_q128_kv128_softcap"));
    }

    @Test
    void wgmmaForwardRunsOnlyOnHopperWith128x128Tiles() {
        AttentionProblem p = new AttentionProblem(4, 16, 4, 8192, 8192, 128, DType.BF16, 0.1, 30);
        KernelTiles t = new KernelTiles(128, 128);
        assertTrue(KernelCatalog.wgmmaFits(p, t, 9));
        assertTrue(!KernelCatalog.wgmmaFits(p, t, 8), "sm_80 has no wgmma");
        assertTrue(!KernelCatalog.wgmmaFits(p, t, 10), "the fatbin's sm_90a code does not run on later majors");
        assertTrue(!KernelCatalog.wgmmaFits(p, new KernelTiles(128, 64), 9));
        LaunchShape ws = KernelCatalog.forwardWgmma(p, 64, ForwardKernel.WGMMA_PINGPONG, false);
        assertEquals("fwd_wgmmapp_bf16_d128_q128_kv128", ws.kernel());
        assertEquals(4L * 16 * 64, ws.grid(), "one work item per q tile, head and batch entry");
        assertTrue(ws.persistent(), "at most one CTA per SM takes the rows from the work queue");
        assertEquals(384, ws.block(), "a producer and two consumer warpgroups");
        // Q, three stages of K and V, alignment; four mbarriers per stage, two per warpgroup's Q, the row ring's two
        // entries (five ints) and their four
        assertEquals((128 * 128 + 6 * 128 * 128) * 2 + 1024 + (12 + 8) * 8 + 2 * 5 * 4, ws.sharedBytes());
        LaunchShape noTurns = KernelCatalog.forwardWgmma(p, 64, ForwardKernel.WGMMA_WS, false);
        assertEquals("fwd_wgmmaws_bf16_d128_q128_kv128", noTurns.kernel());
        assertEquals(384, noTurns.block());
        assertEquals(ws.sharedBytes(), noTurns.sharedBytes(), "one Q buffer at D = 128 with turns or without");
        LaunchShape spans = KernelCatalog.forwardWgmma(p, 64, ForwardKernel.WGMMA_PINGPONG, true);
        assertEquals("fwd_wgmmapp_bf16_d128_q128_kv128_spans", spans.kernel());
        assertEquals(ws.sharedBytes() + 3 * 8 + 16 + 3 * 64 * 4, spans.sharedBytes(),
                "with row spans: a barrier per stage and each K stage's spans (two rows a word, 16-byte aligned)");
        assertTrue(spans.sharedBytes() <= 227 * 1024, "fits Hopper's opt-in limit");
        AttentionProblem p64 = AttentionProblem.of(4, 16, 4, 8192, 8192, 64, DType.BF16);
        assertEquals((128 * 64 + 6 * 128 * 64) * 2 + 1024 + (12 + 12) * 8 + 2 * 5 * 4 + 1024 + 128 * 64 * 2,
                KernelCatalog.forwardWgmma(p64, 64, ForwardKernel.WGMMA_PINGPONG, false).sharedBytes(),
                "D = 64 with turns: a second Q buffer (1024-aligned after the barriers) and its four barriers");
        assertEquals((128 * 64 + 6 * 128 * 64) * 2 + 1024 + (12 + 8) * 8 + 2 * 5 * 4,
                KernelCatalog.forwardWgmma(p64, 64, ForwardKernel.WGMMA_WS, false).sharedBytes(), "D = 64 without turns: one Q buffer");
        assertTrue(ws.sharedBytes() <= 227 * 1024, "fits Hopper's opt-in limit");
    }

    @Test
    void wgmmaBackwardRunsOnlyOnHopperWith128x128Tiles() {
        AttentionProblem p = AttentionProblem.of(4, 16, 4, 8192, 8192, 128, DType.BF16);
        KernelTiles t = new KernelTiles(128, 128);
        assertEquals("bwd_wgmmaws_bf16_d128_q128_kv128", KernelCatalog.backwardFor(p, t, 64, BackwardKernel.WGMMA_WS, 9).kernel());
        assertEquals("bwd_bf16_d128_q128_kv128", KernelCatalog.backwardFor(p, t, 64, BackwardKernel.MMA, 9).kernel());
        assertEquals("bwd_bf16_d128_q128_kv128", KernelCatalog.backwardFor(p, t, 64, BackwardKernel.WGMMA_WS, 10).kernel(),
                "the fatbin's sm_90a code does not run on later majors");
        AttentionProblem capped128 = new AttentionProblem(1, 2, 1, 512, 512, 128, DType.FP16, 0.1, 30);
        assertEquals("bwd_wgmmaws_fp16_d128_q128_kv128_softcap",
                KernelCatalog.backwardFor(capped128, t, 4, BackwardKernel.WGMMA_WS, 9).kernel());
        assertEquals("bwd_fp16_d128_q128_kv64_softcap",
                KernelCatalog.backwardFor(capped128, new KernelTiles(128, 64), 4, BackwardKernel.WGMMA_WS, 9).kernel());
        for (int d : KernelCatalog.HEAD_DIMS) {
            for (boolean capped : new boolean[] {false, true}) {
                AttentionProblem q = new AttentionProblem(1, 2, 1, 512, 512, d, DType.BF16, 0.1, capped ? 30 : 0);
                for (BackwardKernel family : BackwardKernel.hopper()) {
                    String name = KernelCatalog.backwardFor(q, t, 4, family, 9).kernel();
                    assertTrue(KernelCatalog.allNames().contains(name), name + " is in the catalog");
                }
            }
        }
    }

    @Test
    void warpSpecialisedBackwardHasAProducerWarpgroupAndAThreeStageRing() {
        AttentionProblem p = AttentionProblem.of(4, 16, 4, 8192, 8192, 128, DType.BF16);
        KernelTiles t = new KernelTiles(128, 128);
        LaunchShape s = KernelCatalog.backwardFor(p, t, 64, BackwardKernel.WGMMA_WS, 9);
        assertEquals("bwd_wgmmaws_bf16_d128_q128_kv128", s.kernel());
        assertEquals(4L * 4 * 64, s.grid(), "one work item per kv-tile, kv-head and batch entry");
        assertTrue(s.persistent(), "at most one CTA per SM takes the items from the work queue");
        assertEquals(384, s.block(), "a producer and two consumer warpgroups");
        // K, V; 3 stages of Q and dO; 2 dS^T tiles; the fp32 dQ tile; 3 full + 3 empty + 2 dQ-empty mbarriers; 2 counters
        // of the warps that stored dQ; the kv-empty mbarrier; the column ring (4 mbarriers, 2 entries of 3 ints);
        // alignment (LSE and Dsum in registers)
        int columnRing = 8 + 4 * 8 + 2 * 3 * 4;
        assertEquals((2 * 128 * 128 + 6 * 64 * 128 + 2 * 128 * 64) * 2 + 64 * 128 * 4 + 8 * 8 + 2 * 4 + columnRing + 1024,
                s.sharedBytes());
        assertTrue(s.sharedBytes() <= 227 * 1024, "fits Hopper's opt-in limit");
        AttentionProblem capped64 = new AttentionProblem(1, 2, 1, 512, 512, 64, DType.FP16, 0.1, 30);
        LaunchShape c = KernelCatalog.backwardFor(capped64, t, 4, BackwardKernel.WGMMA_WS, 9);
        assertEquals("bwd_wgmmaws_fp16_d64_q128_kv128_softcap", c.kernel());
        assertEquals((2 * 128 * 64 + 6 * 64 * 64 + 2 * 128 * 64) * 2 + 64 * 128 * 4 + 8 * 8 + 2 * 4 + columnRing + 1024,
                c.sharedBytes());
        assertEquals("bwd_bf16_d128_q128_kv128", KernelCatalog.backwardFor(p, t, 64, BackwardKernel.WGMMA_WS, 8).kernel(),
                "sm_80 falls back to mma.sync");
        assertEquals("bwd_bf16_d128_q128_kv64",
                KernelCatalog.backwardFor(p, new KernelTiles(128, 64), 128, BackwardKernel.WGMMA_WS, 9).kernel(),
                "other tiles fall back to mma.sync");
    }

    @Test
    void warpSpecialisedBackwardStagesDqInOne128ColumnFp32TileAtEveryHeadDimAndStillFits() {
        KernelTiles t = new KernelTiles(128, 128);
        for (int d : KernelCatalog.HEAD_DIMS) {
            for (DType dtype : DType.values()) {
                for (double softcap : new double[] {0, 30}) {
                    AttentionProblem p = new AttentionProblem(2, 8, 2, 3000, 3000, d, dtype, 0.1, softcap);
                    LaunchShape ws = KernelCatalog.backwardFor(p, t, 24, BackwardKernel.WGMMA_WS, 9);
                    String where = "d " + d + " " + dtype + " softcap " + softcap;
                    assertTrue(ws.kernel().startsWith("bwd_wgmmaws_"), where + ": " + ws.kernel());
                    assertTrue(KernelCatalog.allNames().contains(ws.kernel()), ws.kernel() + " is in the catalog");
                    assertEquals(2L * 2 * 24, ws.grid(), where + ": batch x kv heads x kv tiles");
                    assertEquals(384, ws.block(), where);
                    // 64 q rows x 128 fp32 columns (two 64-column tiles at D = 64), 8 mbarriers and 2 counters, beside
                    // the ring; the kv-empty mbarrier and the column ring (4 mbarriers, 2 entries of 3 ints)
                    int ring = (2 * 128 * d + 6 * 64 * d + 2 * 128 * 64) * 2;
                    assertEquals(ring + 64 * 128 * 4 + 8 * 8 + 2 * 4 + 8 + 4 * 8 + 2 * 3 * 4 + 1024, ws.sharedBytes(), where);
                    assertTrue(ws.sharedBytes() <= 227 * 1024, where + ": fits Hopper's opt-in limit");
                }
            }
        }
        AttentionProblem p = AttentionProblem.of(4, 16, 4, 8192, 8192, 128, DType.BF16);
        assertEquals(230_536, KernelCatalog.backwardFor(p, t, 64, BackwardKernel.WGMMA_WS, 9).sharedBytes(),
                "the D = 128 layout docs/kernel-notes.md gives");
    }

    @Test
    void backwardKernelSettingIsParsedWithASentenceOnBadValues() {
        assertEquals(BackwardKernel.WGMMA_WS, BackwardKernel.parse(" WGMMA-WS ", "x"));
        assertEquals(BackwardKernel.MMA, BackwardKernel.parse("mma", "x"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BackwardKernel.parse("tma", "SAW_KERNEL_BWD"));
        assertEquals("SAW_KERNEL_BWD=tma is not a backward kernel family (mma or wgmma-ws)", e.getMessage());
        IllegalArgumentException folded = assertThrows(IllegalArgumentException.class,
                () -> BackwardKernel.parse("wgmma-dq", "-Dsaw.kernel.bwd"));
        assertEquals("-Dsaw.kernel.bwd=wgmma-dq is not a backward kernel family (mma or wgmma-ws)",
                folded.getMessage(), "the bulk dQ is wgmma-ws now");
        String before = System.getProperty(BackwardKernel.PROPERTY);
        try {
            System.setProperty(BackwardKernel.PROPERTY, "mma");
            assertEquals(BackwardKernel.MMA, BackwardKernel.configured(), "the property forces the old path");
            System.setProperty(BackwardKernel.PROPERTY, "wgmma");
            IllegalArgumentException retired = assertThrows(IllegalArgumentException.class, BackwardKernel::configured);
            assertEquals("-Dsaw.kernel.bwd=wgmma is not a backward kernel family (mma or wgmma-ws)", retired.getMessage(),
                    "the lock-step Hopper backward is retired: named like any unknown family");
            System.clearProperty(BackwardKernel.PROPERTY);
            if (System.getenv(BackwardKernel.ENV) == null) {
                assertEquals(BackwardKernel.WGMMA_WS, BackwardKernel.configured(), "the default");
            }
        } finally {
            if (before == null) {
                System.clearProperty(BackwardKernel.PROPERTY);
            } else {
                System.setProperty(BackwardKernel.PROPERTY, before);
            }
        }
    }

    @Test
    void forwardKernelSettingIsParsedWithASentenceOnBadValues() {
        assertEquals(ForwardKernel.WGMMA_WS, ForwardKernel.parse(" WGMMA-WS ", "x"));
        assertEquals(ForwardKernel.MMA, ForwardKernel.parse("mma", "x"));
        assertEquals(ForwardKernel.WGMMA_PINGPONG, ForwardKernel.parse("wgmma-pp", "x"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ForwardKernel.parse("tma", "-Dsaw.kernel.fwd"));
        assertEquals("-Dsaw.kernel.fwd=tma is not a forward kernel family (mma, wgmma-ws or wgmma-pp)", e.getMessage());
        IllegalArgumentException retired = assertThrows(IllegalArgumentException.class,
                () -> ForwardKernel.parse("wgmma", "SAW_KERNEL_FWD"));
        assertEquals("SAW_KERNEL_FWD=wgmma is not a forward kernel family (mma, wgmma-ws or wgmma-pp)", retired.getMessage(),
                "the Hopper forward without warp specialisation is retired: named like any unknown family");
        String before = System.getProperty(ForwardKernel.PROPERTY);
        try {
            System.setProperty(ForwardKernel.PROPERTY, "mma");
            assertEquals(ForwardKernel.MMA, ForwardKernel.configured(), "the property forces the old path");
            System.setProperty(ForwardKernel.PROPERTY, "wgmma-ws");
            assertEquals(ForwardKernel.WGMMA_WS, ForwardKernel.configured());
            System.clearProperty(ForwardKernel.PROPERTY);
            if (System.getenv(ForwardKernel.ENV) == null) {
                assertEquals(ForwardKernel.WGMMA_PINGPONG, ForwardKernel.configured(), "the default");
            }
        } finally {
            if (before == null) {
                System.clearProperty(ForwardKernel.PROPERTY);
            } else {
                System.setProperty(ForwardKernel.PROPERTY, before);
            }
        }
    }

    @Test
    void launchShapesRefuseGridsOutsideTheDriversRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new LaunchShape("k", 0, 32, 0));
        assertTrue(e.getMessage().startsWith("k: grid of 0 blocks"), e.getMessage());
        assertEquals("fwd_x <<<grid 12, block 128, shared 4096 B>>>", new LaunchShape("fwd_x", 12, 128, 4096).toString());
    }
}
