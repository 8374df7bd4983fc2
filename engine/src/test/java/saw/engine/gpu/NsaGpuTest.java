package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.Pass;
import saw.engine.nsa.BadSelection;
import saw.engine.nsa.NsaReference;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;

class NsaGpuTest {
    @Test
    void backwardItemsCoverEveryChoiceOnceWithinOneChunkAndNothingElse() throws BadSelection {
        long master = Long.getLong("saw.test.seed", 0x7AB1E5L);
        for (int n = 0; n < 30; n++) {
            long seed = master * 1_000_003L + n;
            SplittableRandom rnd = new SplittableRandom(seed);
            int block = NsaGpu.BLOCKS[rnd.nextInt(3)];
            int seq = 1 + rnd.nextInt(5 * block);
            int kvHeads = 1 + rnd.nextInt(3);
            NsaSelection sel = NsaSelections.random(1 + rnd.nextInt(2), seq, kvHeads, 1 + rnd.nextInt(8), block, seed);
            int chunk = block * (1 + rnd.nextInt(3));
            int maxTokens = 1 + rnd.nextInt(40);
            NsaTables t = NsaTables.of(sel, 0, chunk, maxTokens);
            assertEquals(0, t.items.length, "no per-block forward items unless asked, seed " + seed);
            assertEquals(0, t.colSlot.length, "no per-block forward slots unless asked, seed " + seed);
            int[] buf = new int[sel.maxSelected()];
            long choices = 0;
            for (int plane = 0; plane < sel.batch() * kvHeads; plane++) {
                for (int tok = 0; tok < seq; tok++) {
                    choices += sel.blocks(plane / kvHeads, tok, plane % kvHeads, buf);
                }
            }
            assertEquals(choices, t.colTok.length, "one reverse entry per choice, seed " + seed);
            int[] covered = new int[t.colTok.length];
            for (int i = 0; i < t.bwdItems.length / 3; i++) {
                int e = t.bwdItems[3 * i];
                int from = t.bwdItems[3 * i + 1];
                int to = t.bwdItems[3 * i + 2];
                int kb = e % sel.numKvBlocks();
                int plane = e / sel.numKvBlocks();
                String at = "seed " + seed + " item " + i;
                assertTrue(from < to && to - from <= maxTokens, at + ": 1.." + maxTokens + " tokens");
                assertEquals(t.colTok[from] / chunk, t.colTok[to - 1] / chunk, at + ": one token chunk");
                for (int j = from; j < to; j++) {
                    covered[j]++;
                    int c = sel.blocks(plane / kvHeads, t.colTok[j], plane % kvHeads, buf);
                    assertTrue(Arrays.stream(buf, 0, c).anyMatch(x -> x == kb),
                            at + ": token " + t.colTok[j] + " chose block " + kb);
                }
            }
            for (int j = 0; j < covered.length; j++) {
                assertEquals(1, covered[j], "seed " + seed + ": reverse entry " + j + " in exactly one item");
            }
            assertBlockOrder(t.bwdItems, t.colTok, sel.numKvBlocks(), chunk, true, "seed " + seed + " backward");
        }
    }

    /** Consecutive items of one plane and token chunk walk the kv-blocks up, or down in odd chunks where alternate. */
    private static void assertBlockOrder(int[] items, int[] colTok, int nb, int chunk, boolean alternate, String at) {
        for (int i = 1; i < items.length / 3; i++) {
            int e0 = items[3 * (i - 1)];
            int e1 = items[3 * i];
            int c = colTok[items[3 * i + 1]] / chunk;
            if (e0 / nb != e1 / nb || colTok[items[3 * (i - 1) + 1]] / chunk != c) {
                continue;
            }
            boolean down = alternate && c % 2 == 1;
            assertTrue(down ? e1 % nb <= e0 % nb : e1 % nb >= e0 % nb,
                    at + " item " + i + " (chunk " + c + "): kv-blocks " + (down ? "down" : "up"));
        }
    }

    @Test
    void perBlockItemsCoverEveryChoiceOnceWithinOneChunkAndTheirSlots() throws BadSelection {
        long master = Long.getLong("saw.test.seed", 0xB10CL);
        for (int n = 0; n < 40; n++) {
            long seed = master * 1_000_003L + n;
            SplittableRandom rnd = new SplittableRandom(seed);
            int block = NsaGpu.BLOCKS[rnd.nextInt(3)];
            int seq = 1 + rnd.nextInt(6 * block);
            int batch = 1 + rnd.nextInt(2);
            int kvHeads = 1 + rnd.nextInt(3);
            int maxSel = 1 + rnd.nextInt(8);
            int nb = (seq + block - 1) / block;
            // any list: -1 holes, blocks after the token (not causal), counts below S; distinct within a list
            int rowsSel = batch * seq * kvHeads;
            int[] idx = new int[rowsSel * maxSel];
            int[] cnt = new int[rowsSel];
            for (int r = 0; r < rowsSel; r++) {
                cnt[r] = rnd.nextInt(maxSel + 1);
                List<Integer> pool = new ArrayList<>();
                for (int kb = 0; kb < nb; kb++) {
                    pool.add(kb);
                }
                for (int s = 0; s < maxSel; s++) {
                    boolean hole = pool.isEmpty() || rnd.nextInt(5) == 0;
                    idx[r * maxSel + s] = hole ? -1 : pool.remove(rnd.nextInt(pool.size()));
                }
            }
            NsaSelection sel = NsaSelection.of(batch, seq, kvHeads, maxSel, block, idx, cnt, false);
            int chunk = block * (1 + rnd.nextInt(3));
            int maxTokens = 1 + rnd.nextInt(40);
            NsaTables t = NsaTables.of(sel, chunk, 0, maxTokens);
            int[] covered = new int[t.colTok.length];
            long prevKey = -1;
            for (int i = 0; i < t.items.length / 3; i++) {
                int e = t.items[3 * i];
                int from = t.items[3 * i + 1];
                int to = t.items[3 * i + 2];
                String at = "seed " + seed + " item " + i;
                assertTrue(from < to && to - from <= maxTokens, at + ": 1.." + maxTokens + " tokens");
                assertTrue(from >= t.colPtr[e] && to <= t.colPtr[e + 1], at + ": inside its block's list");
                int c = t.colTok[from] / chunk;
                assertEquals(c, t.colTok[to - 1] / chunk, at + ": one token chunk");
                long key = (long) (e / nb) * (seq / chunk + 1) + c;
                assertTrue(key >= prevKey, at + ": plane-major, then chunk");
                prevKey = key;
                for (int j = from; j < to; j++) {
                    covered[j]++;
                }
            }
            for (int j = 0; j < covered.length; j++) {
                assertEquals(1, covered[j], "seed " + seed + ": reverse entry " + j + " in exactly one item");
            }
            for (int e = 0; e < t.colPtr.length - 1; e++) {
                int plane = e / nb;
                for (int j = t.colPtr[e]; j < t.colPtr[e + 1]; j++) {
                    int slot = t.colSlot[j];
                    int b = plane / kvHeads;
                    int h = plane % kvHeads;
                    assertTrue(slot < sel.count(b, t.colTok[j], h), "seed " + seed + ": slot inside the count");
                    assertEquals(e % nb, sel.block(b, t.colTok[j], h, slot), "seed " + seed + ": slot " + slot + " of token "
                            + t.colTok[j] + " holds the block");
                }
            }
            assertBlockOrder(t.items, t.colTok, nb, chunk, false, "seed " + seed + " forward");
        }
    }

    @Test
    void thePerBlockForwardLaunchesBlockThenMergeAndFreesEverything() throws BadSelection {
        NsaSelection sel = NsaSelections.random(2, 300, 2, 5, 64, 5);
        AttentionProblem p = new AttentionProblem(2, 32, 2, 300, 300, 64, DType.FP16, 0.1, 20);
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
            gpu.forwardOrder(NsaGpu.Forward.BLOCK);
            gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel);
            assertEquals(List.of("nsa_fwd_block_fp16_d64_b64", "nsa_merge_fp16_d64", "bwd_pre_fp16_d64",
                    "nsa_bwd_chunked_fp16_d64_b64_softcap", "bwd_dq_fp16", "bwd_dq_fp16", "bwd_dq_fp16"),
                    kernelsOf(driver.launched));
            assertTrue(driver.live.isEmpty(), "every buffer freed");
        }
        LaunchShape s = NsaGpu.blockShape(p, 128, 77, NsaGpu.Family.MMA);
        assertEquals("nsa_fwd_block_fp16_d64_b128", s.kernel());
        assertEquals(77, s.grid());
        assertEquals((2 * 128 * 64 + 2 * 64 * 64) * 2 + 4 * 64 * 4, s.sharedBytes());
        LaunchShape w = NsaGpu.blockShape(p, 128, 77, NsaGpu.Family.WGMMA);
        assertEquals("nsa_fwd_block_wgmma_fp16_d64_b128", w.kernel());
        assertEquals(128, w.block(), "one warpgroup");
        assertEquals((2 * 128 * 64 + 2 * 64 * 64) * 2 + 4 * 64 * 4 + 1024, w.sharedBytes(), "and the swizzle's alignment");
        LaunchShape m = NsaGpu.mergeShape(p);
        assertEquals((2L * 32 * 300 + 7) / 8, m.grid());
        assertEquals(4096, NsaGpu.blockChunkTokens(new AttentionProblem(1, 64, 4, 65536, 65536, 128, DType.BF16, 0.1, 0), 64));
        assertEquals(300, NsaGpu.blockChunkTokens(p, 64), "a chunk is never longer than the sequence");
    }

    @Test
    void theBackwardAddsDkDvToAccumulatorsAndConvertsThem() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 500, 2, 6, 32, 9);
        AttentionProblem p = new AttentionProblem(1, 16, 2, 500, 500, 128, DType.BF16, 0.1, 0);
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
            gpu.forwardOrder(NsaGpu.Forward.AUTO);  // G = 8: the per-block forward
            gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel);
            // dK and dV from their fp32 accumulators, then dQ
            assertEquals(List.of("nsa_fwd_block_bf16_d128_b32", "nsa_merge_bf16_d128", "bwd_pre_bf16_d128",
                    "nsa_bwd_chunked_bf16_d128_b32", "bwd_dq_bf16", "bwd_dq_bf16", "bwd_dq_bf16"), kernelsOf(driver.launched));
            assertTrue(driver.live.isEmpty(), "every buffer freed");
        }
        LaunchShape c = NsaGpu.backwardShape(p, 32, 10, NsaGpu.Family.MMA, false);
        assertEquals("nsa_bwd_chunked_bf16_d128_b32", c.kernel());
        assertEquals(10, c.grid());
        assertEquals(64, c.block(), "a warp per 16 keys of the block");
        assertEquals((2 * 32 * 128 + 4 * 64 * 128 + 32 * 64) * 2 + 8 * 64 * 4, c.sharedBytes());
        assertEquals(1, NsaGpu.backwardShape(p, 32, 0, NsaGpu.Family.MMA, false).grid(), "never an empty grid");
        assertEquals((2L * 500 * 128 / 2 + 255) / 256, KernelCatalog.toElements(p.dtype(), p.kvElements()).grid());
    }

    @Test
    void backwardChunksAreTheMeasuredBestOnThePublishedShapes() throws BadSelection {
        // {T, HQ, D, tokens}: the chunk each shape measured fastest on an H100 (docs/kernel-notes.md, NSA section)
        int[][] best = {{8192, 64, 128, 512}, {32768, 64, 128, 1024}, {65536, 64, 128, 1536}, {16384, 64, 128, 1024},
                {32768, 64, 64, 2048}, {32768, 32, 128, 2048}, {32768, 16, 128, 4096}};
        for (int[] b : best) {
            AttentionProblem p = new AttentionProblem(1, b[1], 4, b[0], b[0], b[2], DType.BF16, 0.1, 0);
            NsaSelection sel = NsaSelections.random(1, b[0], 4, 16, 64, 7);
            assertEquals(b[3], NsaGpu.backwardChunkTokens(p, sel), "T = " + b[0] + ", HQ = " + b[1] + ", D = " + b[2]);
        }
        for (int seq : new int[] {1, 77, 300}) {
            AttentionProblem p = new AttentionProblem(1, 16, 4, seq, seq, 128, DType.BF16, 0.1, 0);
            int tokens = NsaGpu.backwardChunkTokens(p, NsaSelections.random(1, seq, 4, 16, 64, 7));
            assertTrue(tokens >= 64 && tokens <= Math.max(64, seq), "one block at least, the sequence at most: " + tokens);
        }
    }

    @Test
    void aSelectionNobodyChoseGivesZeroGradientsWithoutTheGatherKernels() throws BadSelection {
        int seq = 200;
        int[] none = new int[seq * 4];
        Arrays.fill(none, -1);
        NsaSelection sel = NsaSelection.of(1, seq, 1, 4, 64, none, new int[seq], true);
        AttentionProblem p = new AttentionProblem(1, 2, 1, seq, seq, 64, DType.BF16, 0.1, 0);
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
            gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel);
            assertEquals(List.of("nsa_merge_bf16_d64", "bwd_pre_bf16_d64", "bwd_dq_bf16", "bwd_dq_bf16", "bwd_dq_bf16"),
                    kernelsOf(driver.launched));
            assertTrue(driver.live.isEmpty(), "every buffer freed");
        }
    }

    @Test
    void aForwardRunLaunchesOnlyItsOrdersKernelsAndFreesEverything() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 300, 2, 4, 64, 5);
        AttentionProblem p = new AttentionProblem(1, 8, 2, 300, 300, 64, DType.FP16, 0.1, 20);
        for (NsaGpu.Forward f : NsaGpu.Forward.values()) {
            FakeDriver driver = new FakeDriver(1L << 34);
            driver.kernels.addAll(NsaGpu.allNames());
            try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", 9)) {
                gpu.forwardOrder(f);
                gpu.forward(AttentionInputs.random(p, 1, false), sel);
                List<String> kernels = f == NsaGpu.Forward.WARP ? List.of("nsa_fwd_warp_fp16_d64_b64")
                        : f == NsaGpu.Forward.SHARED ? List.of("nsa_fwd_shared_fp16_d64_b64")
                        : List.of("nsa_fwd_block_wgmma_fp16_d64_b64", "nsa_merge_fp16_d64");  // AUTO at G = 4: block
                assertEquals(kernels, kernelsOf(driver.launched), f.name());
                assertOnlyTheWorkQueueLive(driver, "every buffer freed, " + f);
            }
        }
    }

    @Test
    void theSharedWalkListsEachTilesUnionInOrderWithItsTokensMasks() throws BadSelection {
        SplittableRandom rnd = new SplittableRandom(17);
        for (int round = 0; round < 12; round++) {
            int batch = 1 + rnd.nextInt(2);
            int seq = 1 + rnd.nextInt(700);
            int kvHeads = 1 + rnd.nextInt(3);
            int s = 1 + rnd.nextInt(8);
            int block = new int[] {32, 64, 128}[rnd.nextInt(3)];
            int tileTokens = 1 + rnd.nextInt(12);
            long seed = rnd.nextLong();
            NsaSelection sel = rnd.nextBoolean() ? NsaSelections.random(batch, seq, kvHeads, s, block, seed)
                    : NsaSelections.scored(batch, seq, kvHeads, s, block, 16, seed);
            NsaTables.Walk walk = NsaTables.walk(sel, tileTokens);
            int tilesPerPlane = (seq + tileTokens - 1) / tileTokens;
            assertEquals(batch * kvHeads * tilesPerPlane + 1, walk.ptr().length);
            long pairs = 0;
            for (int b = 0; b < batch; b++) {
                for (int h = 0; h < kvHeads; h++) {
                    for (int tile = 0; tile < tilesPerPlane; tile++) {
                        // brute force: every (block, token) pair the tile's tokens may see
                        TreeMap<Integer, Integer> expected = new TreeMap<>();
                        for (int w = 0; w < tileTokens && tile * tileTokens + w < seq; w++) {
                            int token = tile * tileTokens + w;
                            for (int j = 0; j < sel.count(b, token, h); j++) {
                                int kb = sel.block(b, token, h, j);
                                if (kb >= 0 && kb * block <= token) {
                                    expected.merge(kb, 1 << w, (x, y) -> x | y);
                                    pairs++;
                                }
                            }
                        }
                        int i = (b * kvHeads + h) * tilesPerPlane + tile;
                        List<Integer> got = new ArrayList<>();
                        for (int e = walk.ptr()[i]; e < walk.ptr()[i + 1]; e++) {
                            got.add(walk.entries()[e]);
                        }
                        List<Integer> want = new ArrayList<>();
                        expected.forEach((kb, mask) -> want.add(kb << 12 | mask));
                        assertEquals(want, got, "round " + round + ", tile " + i);
                    }
                }
            }
            assertEquals(pairs, walk.pairs(), "round " + round);
            double sharing = walk.entries().length == 0 ? 0 : (double) pairs / walk.entries().length;
            assertEquals(sharing, walk.sharing(), 1e-12);
        }
        NsaSelection tiny = NsaSelections.random(1, 10, 1, 1, 32, 1);
        assertThrows(IllegalArgumentException.class, () -> NsaTables.walk(tiny, 13));
    }

    @Test
    void theSharedWalkRunsOnHopperWithUpTo16HeadsAKvHeadAndIsRefusedElsewhereByName() throws BadSelection {
        NsaSelection sel = NsaSelections.random(2, 300, 2, 5, 64, 5);
        AttentionProblem p = new AttentionProblem(2, 32, 2, 300, 300, 128, DType.BF16, 0.1, 0);
        LaunchShape s = NsaGpu.sharedShape(p, 64);
        assertEquals("nsa_fwd_shared_bf16_d128_b64", s.kernel());
        assertEquals(2L * 2 * ((300 + 10) / 11), s.grid(), "a work item per (plane, 11 tokens)");
        assertTrue(s.persistent(), "at most one CTA per SM, taking every grid-th item");
        assertEquals(12 * 32, s.block(), "11 consumer warps and a producer");
        assertEquals(12 * 2 * 32 * 128 * 2 + 1024, s.sharedBytes(), "12 slots of 32 keys of K and V, 1024-aligned");
        for (int major : new int[] {8, 9}) {
            FakeDriver driver = new FakeDriver(1L << 34);
            driver.kernels.addAll(NsaGpu.allNames());
            try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", major)) {
                gpu.forwardOrder(NsaGpu.Forward.SHARED);
                if (major == 9) {
                    gpu.forward(AttentionInputs.random(p, 1, false), sel);
                    assertEquals(List.of("nsa_fwd_shared_bf16_d128_b64"), kernelsOf(driver.launched));
                    assertEquals(2, driver.tileMaps.size(), "one map of K and one of V: " + driver.tileMaps);
                    TileMap expected = new TileMap(true, new long[] {128, 300, 2 * 2}, new long[] {256, 256L * 300},
                            new int[] {64, 64, 1});
                    for (FakeDriver.MapRequest r : driver.tileMaps) {
                        assertEquals(expected, r.map(), "[batch x kv heads][tokens][head dim], 64 columns x 64 keys");
                    }
                    assertTrue(driver.tileMaps.get(0).base() != driver.tileMaps.get(1).base(), "K and V differ");
                    AttentionProblem d64 = new AttentionProblem(2, 32, 2, 300, 300, 64, DType.FP16, 0.1, 0);
                    assertEquals(new TileMap(false, new long[] {64, 300, 4}, new long[] {128, 128L * 300},
                            new int[] {64, 64, 1}), NsaGpu.walkKvMap(d64, 64), "D = 64, blocks of 64: 64-key chunks");
                    assertEquals(new TileMap(false, new long[] {64, 300, 4}, new long[] {128, 128L * 300},
                            new int[] {64, 32, 1}), NsaGpu.walkKvMap(d64, 32), "blocks of 32: a chunk is a block");
                    assertEquals(new TileMap(true, new long[] {128, 300, 4}, new long[] {256, 256L * 300},
                            new int[] {64, 32, 1}), NsaGpu.walkKvMap(p, 32), "D = 128, blocks of 32: 32-key chunks");
                    AttentionProblem wide = new AttentionProblem(2, 34, 2, 300, 300, 128, DType.BF16, 0.1, 0);
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> gpu.forward(AttentionInputs.random(wide, 1, false), sel));
                    assertTrue(e.getMessage().contains("at most 16 heads per kv head") && e.getMessage().contains("17"),
                            e.getMessage());
                } else {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> gpu.forward(AttentionInputs.random(p, 1, false), sel));
                    assertTrue(e.getMessage().startsWith("saw.nsa.fwd / SAW_NSA_FWD is shared, which runs on compute "
                            + "capability 9.0"), e.getMessage());
                    assertTrue(driver.launched.isEmpty(), "refused before anything ran");
                }
                assertOnlyTheWorkQueueLive(driver, "every buffer freed");
            }
        }
    }

    @Test
    void hopperRunsTheWarpgroupKernelsAtBlocks64And128AndMmaElsewhere() throws BadSelection {
        AttentionProblem p = new AttentionProblem(1, 16, 2, 300, 300, 128, DType.BF16, 0.1, 0);
        for (int block : NsaGpu.BLOCKS) {
            for (int major : new int[] {8, 9}) {
                for (NsaGpu.Forward order : new NsaGpu.Forward[] {NsaGpu.Forward.WARP, NsaGpu.Forward.BLOCK}) {
                    NsaSelection sel = NsaSelections.random(1, 300, 2, 4, block, 7);
                    FakeDriver driver = new FakeDriver(1L << 34);
                    driver.kernels.addAll(NsaGpu.allNames());
                    try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", major)) {
                        gpu.forwardOrder(order);
                        gpu.family(NsaGpu.Family.AUTO);
                        gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel);
                        boolean hopper = major == 9 && block >= 64;
                        List<String> fwd = order == NsaGpu.Forward.WARP ? List.of("nsa_fwd_warp_bf16_d128_b" + block)
                                : List.of((hopper ? "nsa_fwd_block_wgmma_bf16_d128_b" : "nsa_fwd_block_bf16_d128_b") + block,
                                        "nsa_merge_bf16_d128");
                        String bwd = (hopper ? "nsa_bwd_wgmma_bf16_d128_b" : "nsa_bwd_chunked_bf16_d128_b") + block;
                        List<String> all = new ArrayList<>(fwd);
                        all.addAll(List.of("bwd_pre_bf16_d128", bwd, "bwd_dq_bf16", "bwd_dq_bf16", "bwd_dq_bf16"));
                        assertEquals(all, kernelsOf(driver.launched), order + ", block " + block + ", major " + major);
                        assertTrue(driver.live.isEmpty(), "every buffer freed");
                    }
                }
            }
        }
        AttentionProblem capped = new AttentionProblem(1, 16, 2, 300, 300, 64, DType.FP16, 0.1, 30);
        LaunchShape w = NsaGpu.backwardShape(capped, 64, 12, NsaGpu.Family.WGMMA, false);
        assertEquals("nsa_bwd_wgmma_fp16_d64_b64_softcap", w.kernel());
        assertEquals(12, w.grid());
        assertEquals(128, w.block(), "one warpgroup");
        assertEquals((2 * 64 * 64 + 4 * 64 * 64 + 64 * 64) * 2 + 8 * 64 * 4 + 1024, w.sharedBytes(),
                "K, V, two Q and dO stages, dS^T, the row tables and the swizzle's alignment");
        assertEquals(109_568, NsaGpu.backwardShape(p, 64, 1, NsaGpu.Family.WGMMA, false).sharedBytes(),
                "D = 128: two CTAs fit the H200's 227 KB per SM");
        LaunchShape two = NsaGpu.backwardShape(p, 128, 3, NsaGpu.Family.WGMMA, false);
        assertEquals("nsa_bwd_wgmma_bf16_d128_b128", two.kernel());
        assertEquals(256, two.block(), "a warpgroup per 64 kv rows");
        assertEquals((2 * 128 * 128 + 4 * 64 * 128 + 128 * 64) * 2 + 8 * 64 * 4 + 1024, two.sharedBytes());
    }

    @Test
    void theStagedDkDvVariantRunsWhereAPlanesAccumulatorsPassL2() {
        SplittableRandom rnd = new SplittableRandom(31);
        for (int i = 0; i < 200; i++) {
            int seq = 1 + rnd.nextInt(200_000);
            int d = rnd.nextBoolean() ? 64 : 128;
            int block = rnd.nextBoolean() ? 64 : 128;
            boolean capped = rnd.nextBoolean();
            boolean nativeDq = rnd.nextBoolean();
            DType t = rnd.nextBoolean() ? DType.BF16 : DType.FP16;
            AttentionProblem p = new AttentionProblem(1 + rnd.nextInt(4), 64, 4, seq, seq, d, t, 0.1, capped ? 30 : 0);
            String kernel = NsaGpu.backwardShape(p, block, 7, NsaGpu.Family.WGMMA, nativeDq).kernel();
            boolean expected = !nativeDq && d == 128 && block == 64 && seq * 128L * 8 >= (64L << 20);
            assertEquals(expected, kernel.endsWith("_kvs"), kernel + " at T = " + seq);
            assertTrue(NsaGpu.allNames().contains(kernel), kernel + " is built");
            String mma = NsaGpu.backwardShape(p, block, 7, NsaGpu.Family.MMA, nativeDq).kernel();
            assertFalse(mma.contains("_kvs"), "the mma.sync backward has no staged variant: " + mma);
        }
        AttentionProblem at64k = new AttentionProblem(2, 64, 4, 65_536, 65_536, 128, DType.BF16, 0.1, 0);
        assertEquals("nsa_bwd_wgmma_bf16_d128_b64_kvs",
                NsaGpu.backwardShape(at64k, 64, 1, NsaGpu.Family.WGMMA, false).kernel());
        AttentionProblem at32k = new AttentionProblem(4, 64, 4, 32_768, 32_768, 128, DType.BF16, 0.1, 0);
        assertEquals("nsa_bwd_wgmma_bf16_d128_b64",
                NsaGpu.backwardShape(at32k, 64, 1, NsaGpu.Family.WGMMA, false).kernel(), "32 MiB a plane stays in L2");
    }

    @Test
    void aWorkItemsGatheredRowsStayWithin2048OrOneTokensGroup() {
        // nsa.cu's per-block kernels count an item's rows (tokens x G) in 32 bits
        for (int group : new int[] {1, 3, 4, 16, 24, 2048, 4096}) {
            AttentionProblem p = new AttentionProblem(1, group, 1, 1000, 1000, 64, DType.BF16, 0.1, 0);
            long rows = (long) NsaGpu.blockItemTokens(p) * group;
            assertTrue(rows <= Math.max(NsaGpu.BLOCK_ITEM_ROWS, group), "G = " + group + ": " + rows + " rows");
            assertTrue(rows >= Math.min(NsaGpu.BLOCK_ITEM_ROWS, group), "an item holds at least one token");
        }
    }

    @Test
    void theWarpgroupFamilyAskedWhereItCannotRunIsRefusedByName() throws BadSelection {
        AttentionProblem p = new AttentionProblem(1, 4, 1, 200, 200, 64, DType.BF16, 0.1, 0);
        NsaSelection sel = NsaSelections.random(1, 200, 1, 4, 32, 3);
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", 9)) {
            gpu.family(NsaGpu.Family.WGMMA);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel));
            assertEquals("saw.nsa.family / SAW_NSA_FAMILY is wgmma, which runs NSA block sizes 64 and 128 on compute capability "
                    + "9.0 only; this is block size 32 on compute capability 9.x (use mma or auto)", e.getMessage());
            assertTrue(driver.launched.isEmpty(), "refused before anything ran");
            gpu.forwardOrder(NsaGpu.Forward.BLOCK);
            assertThrows(IllegalArgumentException.class, () -> gpu.forward(AttentionInputs.random(p, 1, false), sel),
                    "the per-block forward is of the family too");
            gpu.forwardOrder(NsaGpu.Forward.WARP);
            gpu.forward(AttentionInputs.random(p, 1, false), sel);  // the warp-order forward is mma.sync only
        }
        withProperty(NsaGpu.Family.PROPERTY, "tma", () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, NsaGpu.Family::configured);
            assertEquals("saw.nsa.family / SAW_NSA_FAMILY is 'tma'; it must be wgmma, mma or auto", e.getMessage());
            System.setProperty(NsaGpu.Family.PROPERTY, " MMA ");
            assertEquals(NsaGpu.Family.MMA, NsaGpu.Family.configured());
        });
    }

    @Test
    void anUnknownForwardOrderIsRefusedWithTheValidOnes() {
        withProperty(NsaGpu.Forward.PROPERTY, "tile", () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, NsaGpu.Forward::configured);
            assertEquals("saw.nsa.fwd / SAW_NSA_FWD is 'tile'; it must be warp, block, shared or auto", e.getMessage());
            System.setProperty(NsaGpu.Forward.PROPERTY, " Warp ");
            assertEquals(NsaGpu.Forward.WARP, NsaGpu.Forward.configured());
            System.setProperty(NsaGpu.Forward.PROPERTY, "block");
            assertEquals(NsaGpu.Forward.BLOCK, NsaGpu.Forward.configured());
        });
    }

    @Test
    void aNativeDqAccumulatorAddsIntoDqOnHopperWithoutTheConversionAndIsRefusedByNameWhenMistyped() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 300, 2, 4, 64, 5);
        AttentionProblem p = new AttentionProblem(1, 32, 2, 300, 300, 128, DType.BF16, 0.1, 0);
        for (int major : new int[] {8, 9}) {
            FakeDriver driver = new FakeDriver(1L << 34);
            driver.kernels.addAll(NsaGpu.allNames());
            try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", major)) {
                gpu.forwardOrder(NsaGpu.Forward.WARP);
                gpu.dqAccumulator(NsaGpu.DqAccumulator.NATIVE);
                gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel);
                // Hopper: dQ straight from the kernel, only dK and dV converted; elsewhere mma.sync keeps fp32
                List<String> want = major == 9
                        ? List.of("nsa_fwd_warp_bf16_d128_b64", "bwd_pre_bf16_d128", "nsa_bwd_wgmma_bf16_d128_b64_dqn",
                                "bwd_dq_bf16", "bwd_dq_bf16")
                        : List.of("nsa_fwd_warp_bf16_d128_b64", "bwd_pre_bf16_d128", "nsa_bwd_chunked_bf16_d128_b64",
                                "bwd_dq_bf16", "bwd_dq_bf16", "bwd_dq_bf16");
                assertEquals(want, kernelsOf(driver.launched), "major " + major);
                assertTrue(driver.live.isEmpty(), "every buffer freed");
            }
        }
        try (NsaGpu gpu = NsaGpu.open(new FakeDriver(1L << 34), new byte[16], "fake", 9)) {
            gpu.forwardOrder(NsaGpu.Forward.WARP);
            gpu.family(NsaGpu.Family.AUTO);
            gpu.dqAccumulator(NsaGpu.DqAccumulator.NATIVE);
            assertEquals("forward warp, family auto, dQ adds native", gpu.settings(), "what a run's log names");
        }
        assertEquals("nsa_bwd_wgmma_fp16_d64_b128_softcap_dqn",
                NsaGpu.backwardShape(new AttentionProblem(1, 8, 2, 300, 300, 64, DType.FP16, 0.1, 30), 128, 3,
                        NsaGpu.Family.WGMMA, true).kernel());
        withProperty(NsaGpu.DqAccumulator.PROPERTY, " Native ",
                () -> assertEquals(NsaGpu.DqAccumulator.NATIVE, NsaGpu.DqAccumulator.configured()));
        withProperty(NsaGpu.DqAccumulator.PROPERTY, "bf16", () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, NsaGpu.DqAccumulator::configured);
            assertEquals("saw.nsa.dqAccum / SAW_NSA_DQ_ACCUM is 'bf16'; it must be fp32 or native", e.getMessage());
        });
    }

    /** Runs {@code body} with the system property {@code key} set to {@code value}, then puts back what was there. */
    private static void withProperty(String key, String value, Runnable body) {
        String before = System.getProperty(key);
        System.setProperty(key, value);
        try {
            body.run();
        } finally {
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }

    @Test
    void theBlockForwardIsPickedUpToEightHeadsPerKvHeadAndTheWarpOrTheSharedWalkAbove() {
        DoubleSupplier notAsked = () -> {
            throw new AssertionError("the walk's sharing is counted only where the shared walk could be picked");
        };
        for (int g = 1; g <= 64; g++) {
            NsaGpu.Forward want = g <= 8 ? NsaGpu.Forward.BLOCK : NsaGpu.Forward.WARP;
            assertEquals(want, NsaGpu.Forward.forGroup(g), "G " + g);
            for (int d : new int[] {64, 128, 256}) {
                for (int block : new int[] {32, 64, 128}) {
                    for (int major : new int[] {8, 9}) {
                        boolean walkRuns = g > 8 && g <= 16 && d != 256 && major == 9;
                        // the walk crosses the warp order near 1.2 at D = 128; at D = 64 near 1.12 with 64-key chunks
                        // (blocks of 64 or more) and near 2.2 with 32-key chunks (blocks of 32)
                        double least = d == 128 ? 1.2 : block == 32 ? 2.2 : 1.12;
                        DoubleSupplier low = walkRuns ? () -> Math.nextDown(least) : notAsked;
                        DoubleSupplier high = walkRuns ? () -> least : notAsked;
                        String at = "G " + g + ", D " + d + ", block " + block + ", compute capability " + major;
                        assertEquals(want, NsaGpu.Forward.auto(g, Integer.MAX_VALUE, major, d, block, low), at);
                        assertEquals(walkRuns ? NsaGpu.Forward.SHARED : want,
                                NsaGpu.Forward.auto(g, Integer.MAX_VALUE, major, d, block, high),
                                at + ", sharing " + least);
                        assertEquals(walkRuns ? NsaGpu.Forward.SHARED : NsaGpu.Forward.WARP,
                                NsaGpu.Forward.auto(g, Integer.MAX_VALUE + 1L, major, d, block, high),
                                at + " past the per-block forward's 32-bit partial index: the warp order or the walk");
                    }
                }
            }
        }
    }

    @Test
    void autoTakesTheSharedWalkWhereNeighbouringTokensShareBlocks() throws BadSelection {
        // top-S of block scores at T = 4096 (blocks of 64) share far above the rule's 1.2; tokens that each choose
        // another block of 32 than their neighbours (token t: block t mod its causal blocks) below it; both
        // at G = 16, D = 128 on capability 9.0
        NsaSelection scored = NsaSelections.scored(1, 4096, 1, 16, 64, 16, 3);
        int[] own = new int[4096];
        for (int t = 0; t < own.length; t++) {
            own[t] = t % (t / 32 + 1);
        }
        int[] ones = new int[4096];
        Arrays.fill(ones, 1);
        NsaSelection apart = NsaSelection.of(1, 4096, 1, 1, 32, own, ones, true);
        assertTrue(NsaGpu.walkSharing(scored) > 4, "scored selections share");
        assertTrue(NsaGpu.walkSharing(apart) < 1.2, "these do not: " + NsaGpu.walkSharing(apart));
        assertEquals(NsaTables.walk(apart, NsaGpu.SHARED_TOKENS).sharing(), NsaGpu.walkSharing(apart));
        AttentionProblem p = new AttentionProblem(1, 16, 1, 4096, 4096, 128, DType.BF16, 0.1, 0);
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake", 9)) {
            gpu.forward(AttentionInputs.random(p, 1, false), scored);
            gpu.forward(AttentionInputs.random(p, 1, false), apart);
            gpu.forwardOrder(NsaGpu.Forward.WARP);
            gpu.forward(AttentionInputs.random(p, 1, false), scored);
            assertEquals(List.of("nsa_fwd_shared_bf16_d128_b64", "nsa_fwd_warp_bf16_d128_b32",
                    "nsa_fwd_warp_bf16_d128_b64"), kernelsOf(driver.launched),
                    "auto, auto, then the warp order as asked");
            assertEquals(NsaGpu.Forward.SHARED, gpu.autoForward(p, scored, NsaGpu.walkSharing(scored)),
                    "what auto ran, with warp set");
            assertEquals(NsaGpu.Forward.WARP, gpu.autoForward(p, apart, NsaGpu.walkSharing(apart)));
            AttentionProblem g4 = new AttentionProblem(1, 4, 1, 4096, 4096, 128, DType.BF16, 0.1, 0);
            assertEquals(NsaGpu.Forward.BLOCK, gpu.autoForward(g4, scored, NsaGpu.walkSharing(scored)));
        }
        try (NsaGpu ampere = NsaGpu.open(new FakeDriver(1L << 34), new byte[16], "fake")) {
            assertEquals(NsaGpu.Forward.WARP, ampere.autoForward(p, scored, NsaGpu.walkSharing(scored)),
                    "no walk below capability 9.0");
        }
        assertTrue(driver.live.isEmpty(), "every buffer freed");
    }

    @Test
    void anExplicitOrderStaysAndAnExplicitBlockOrderPastItsIndexIsRefused() throws BadSelection {
        // G = 4096, T = 16384, S = 32: batch x tokens x heads x S = 2^31 partial rows, one past the 32-bit index
        NsaSelection sel = NsaSelections.random(1, 16384, 1, 32, 64, 11);
        AttentionProblem big = new AttentionProblem(1, 4096, 1, 16384, 16384, 64, DType.BF16, 0.1, 0);
        AttentionProblem small = new AttentionProblem(1, 4, 1, 16384, 16384, 64, DType.BF16, 0.1, 0);
        DoubleSupplier notAsked = () -> {
            throw new AssertionError("no walk past 16 heads a kv head");
        };
        assertEquals(NsaGpu.Forward.WARP, NsaGpu.Forward.auto(4096, NsaGpu.partialRows(big, sel), 9, 64, 64, notAsked));
        assertEquals(NsaGpu.Forward.BLOCK, NsaGpu.Forward.auto(4, NsaGpu.partialRows(small, sel), 9, 64, 64, notAsked));
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
            gpu.forwardOrder(NsaGpu.Forward.BLOCK);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> gpu.prepare(big, sel, Pass.FWD, 1));
            assertEquals("the per-block NSA forward indexes its partials with 32 bits: batch x tokens x heads x S = "
                    + "2147483648 is past 2147483647; use the warp order (SAW_NSA_FWD=warp) or auto", e.getMessage());
        }
        assertTrue(driver.live.isEmpty(), "nothing allocated");
    }

    @Test
    void theWarpForwardLaunchesAWarpPerTokenAndSixteenHeads() throws BadSelection {
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        NsaSelection sel = NsaSelections.random(2, 300, 2, 4, 32, 5);
        AttentionProblem p = new AttentionProblem(2, 48, 2, 300, 300, 128, DType.BF16, 0.1, 0);
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
            gpu.forwardOrder(NsaGpu.Forward.AUTO);
            gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel);
            assertEquals(List.of("nsa_fwd_warp_bf16_d128_b32", "bwd_pre_bf16_d128", "nsa_bwd_chunked_bf16_d128_b32",
                    "bwd_dq_bf16", "bwd_dq_bf16", "bwd_dq_bf16"), kernelsOf(driver.launched));
            assertTrue(driver.live.isEmpty(), "every buffer freed");
        }
        // G = 24: two warps per token (16 + 8 heads), four warps per CTA, a 3-chunk ring of 16 keys of K and V each
        AttentionProblem g24 = new AttentionProblem(1, 48, 2, 1001, 1001, 64, DType.FP16, 0.1, 0);
        LaunchShape s = NsaGpu.warpShape(g24, 64);
        assertEquals("nsa_fwd_warp_fp16_d64_b64", s.kernel());
        assertEquals((2L * 1001 * 2 + 3) / 4, s.grid());
        assertEquals(128, s.block());
        assertEquals(4 * 3 * 2 * 16 * 64 * 2, s.sharedBytes());
    }

    @Test
    void unsupportedShapesAreNamed() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 100, 2, 4, 16, 5);
        AttentionProblem p = new AttentionProblem(1, 4, 2, 100, 100, 128, DType.BF16, 0.1, 0);
        assertEquals("NSA block size 16 is not supported by the kernels (32, 64 or 128)", NsaGpu.unsupported(p, sel));
        AttentionProblem wrongHeads = new AttentionProblem(1, 4, 4, 100, 100, 128, DType.BF16, 0.1, 0);
        assertTrue(NsaGpu.unsupported(wrongHeads, sel).contains("kv heads 2"), NsaGpu.unsupported(wrongHeads, sel));
    }

    /** Runs only where a usable GPU is (skipped in CI, which has none); the device runs bench/gpu/nsa-run.sh. */
    @Test
    void kernelsMatchTheFp64ReferenceOnRandomSelections() throws BadSelection {
        GpuStatus s = GpuBackend.detect();
        Assumptions.assumeTrue(s.usable(), "no usable GPU here: " + s.message());
        long master = Long.getLong("saw.test.seed", 0x45AL);
        try (NsaGpu gpu = NsaGpu.open()) {
            for (int n = 0; n < 24; n++) {
                gpu.forwardOrder(NsaGpu.Forward.values()[n % 3]);  // warp, block, auto
                // auto (wgmma at block 64 on Hopper) and mma alternate
                gpu.family(n % 2 == 0 ? NsaGpu.Family.AUTO : NsaGpu.Family.MMA);
                long seed = master * 1_000_003L + n;
                SplittableRandom rnd = new SplittableRandom(seed);
                int block = NsaGpu.BLOCKS[rnd.nextInt(3)];
                int seq = 1 + rnd.nextInt(600);
                int kvHeads = 1 + rnd.nextInt(2);
                int group = new int[] {1, 2, 4, 8, 16, 24}[rnd.nextInt(6)];
                DType type = rnd.nextBoolean() ? DType.BF16 : DType.FP16;
                int d = rnd.nextBoolean() ? 64 : 128;
                NsaSelection sel = NsaSelections.random(1, seq, kvHeads, 1 + rnd.nextInt(16), block, seed);
                AttentionProblem p = new AttentionProblem(1, kvHeads * group, kvHeads, seq, seq, d, type, 1 / Math.sqrt(d),
                        rnd.nextBoolean() ? 20 : 0);
                AttentionInputs in = AttentionInputs.random(p, seed, true);
                AttentionOutputs got = gpu.forwardBackward(in, sel);
                AttentionOutputs ref = NsaReference.compute(in, sel, true);
                for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
                    if (!e.passes(type.tolerance())) {
                        fail("case " + n + " (seed " + seed + "): " + e);
                    }
                }
            }
        }
    }

    @Test
    void timedRunsNameTheirKernels() throws BadSelection {
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        NsaSelection sel = NsaSelections.random(1, 256, 1, 4, 32, 5);
        AttentionProblem p = new AttentionProblem(1, 4, 1, 256, 256, 64, DType.FP16, 0.1, 30);
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
            try (var run = gpu.prepare(p, sel, Pass.BWD, 3)) {
                assertEquals("nsa_bwd_chunked_fp16_d64_b32_softcap", run.kernelName());
                run.runTimedMs();
            }
            try (var run = gpu.prepare(p, sel, Pass.FWD, 3)) {
                assertEquals("nsa_fwd_block_fp16_d64_b32+nsa_merge_fp16_d64", run.kernelName());
                run.runTimedMs();
            }
            gpu.forwardOrder(NsaGpu.Forward.WARP);
            try (var run = gpu.prepare(p, sel, Pass.FWD, 3)) {
                assertEquals("nsa_fwd_warp_fp16_d64_b32", run.kernelName());
                run.runTimedMs();
            }
        }
        assertTrue(driver.live.isEmpty(), "every buffer freed");
    }

    private static List<String> kernelsOf(List<String> launched) {
        List<String> out = new ArrayList<>();
        for (String l : launched) {
            String k = l.contains(" ") ? l.substring(0, l.indexOf(' ')) : l;
            if (!k.startsWith("fill")) {
                out.add(k);
            }
        }
        return out;
    }

    /** Every buffer of a run freed; the walk's persistent launch leaves the device's work queue (8 bytes) made. */
    private static void assertOnlyTheWorkQueueLive(FakeDriver driver, String what) {
        assertTrue(driver.live.size() <= 1 && driver.live.values().stream().allMatch(bytes -> bytes == 8),
                what + ": " + driver.live.values());
    }
}
