package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
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
    void forwardTablesGiveEveryRowExactlyItsTokensBlocks() throws BadSelection {
        long master = Long.getLong("saw.test.seed", 0x7AB1E5L);
        for (int n = 0; n < 30; n++) {
            long seed = master * 1_000_003L + n;
            SplittableRandom rnd = new SplittableRandom(seed);
            int block = NsaGpu.BLOCKS[rnd.nextInt(3)];
            int seq = 1 + rnd.nextInt(5 * block);
            int kvHeads = 1 + rnd.nextInt(3);
            int group = new int[] {1, 3, 4, 16, 24, 64, 128}[rnd.nextInt(7)];
            NsaSelection sel = NsaSelections.random(1 + rnd.nextInt(2), seq, kvHeads, 1 + rnd.nextInt(8), block, seed);
            NsaTables t = NsaTables.of(sel, group, true, true);
            long planeRows = (long) seq * group;
            assertEquals((planeRows + 63) / 64, t.tilesPerPlane, "seed " + seed);
            int[] buf = new int[sel.maxSelected()];
            for (int plane = 0; plane < sel.batch() * kvHeads; plane++) {
                for (int tile = 0; tile < t.tilesPerPlane; tile++) {
                    int item = plane * t.tilesPerPlane + tile;
                    for (int r = 0; r < 64; r++) {
                        long row = (long) tile * 64 + r;
                        Set<Integer> want = new HashSet<>();
                        if (row < planeRows) {
                            int c = sel.blocks(plane / kvHeads, (int) (row / group), plane % kvHeads, buf);
                            for (int s = 0; s < c; s++) {
                                want.add(buf[s]);
                            }
                        }
                        Set<Integer> got = new HashSet<>();
                        int prev = -1;
                        for (int e = t.tilePtr[item]; e < t.tilePtr[item + 1]; e++) {
                            assertTrue(t.tileBlk[e] > prev, "union ascending, seed " + seed);
                            prev = t.tileBlk[e];
                            if (((t.tileMask[2 * e + (r >> 5)] >>> (r & 31)) & 1) != 0) {
                                got.add(t.tileBlk[e]);
                            }
                        }
                        assertEquals(want, got, "seed " + seed + " plane " + plane + " tile " + tile + " row " + r);
                    }
                }
            }
            long choices = 0;
            for (int plane = 0; plane < sel.batch() * kvHeads; plane++) {
                for (int tok = 0; tok < seq; tok++) {
                    choices += sel.blocks(plane / kvHeads, tok, plane % kvHeads, buf);
                }
            }
            assertEquals(choices, t.colTok.length, "one reverse entry per choice, seed " + seed);
            for (int e = 0; e < t.colPtr.length - 1; e++) {
                int kb = e % sel.numKvBlocks();
                int plane = e / sel.numKvBlocks();
                for (int at = t.colPtr[e]; at < t.colPtr[e + 1]; at++) {
                    assertTrue(at == t.colPtr[e] || t.colTok[at - 1] < t.colTok[at], "tokens ascending, seed " + seed);
                    int c = sel.blocks(plane / kvHeads, t.colTok[at], plane % kvHeads, buf);
                    assertTrue(Arrays.stream(buf, 0, c).anyMatch(x -> x == kb),
                            "token " + t.colTok[at] + " chose block " + kb + ", seed " + seed);
                }
            }
            int entries = sel.batch() * kvHeads * sel.numKvBlocks();
            assertEquals(entries, t.order.length);
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < entries; i++) {
                assertTrue(seen.add(t.order[i]));
                if (i > 0) {
                    int before = t.colPtr[t.order[i - 1] + 1] - t.colPtr[t.order[i - 1]];
                    assertTrue(before >= t.colPtr[t.order[i] + 1] - t.colPtr[t.order[i]], "heaviest first, seed " + seed);
                }
            }
        }
    }

    @Test
    void aRunLaunchesForwardThenDsumBackwardAndDqAndFreesEverything() throws BadSelection {
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        NsaSelection sel = NsaSelections.random(1, 300, 2, 4, 64, 5);
        AttentionProblem p = new AttentionProblem(1, 8, 2, 300, 300, 128, DType.BF16, 0.1, 0);
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
            gpu.forwardOrder(NsaGpu.Forward.TILE);
            gpu.forwardBackward(AttentionInputs.random(p, 1, true), sel);
            assertEquals(List.of("nsa_fwd_bf16_d128_b64", "bwd_pre_bf16_d128", "nsa_bwd_bf16_d128_b64", "bwd_dq_bf16"),
                    kernelsOf(driver.launched));
            assertTrue(driver.live.isEmpty(), "every buffer freed");
        }
    }

    @Test
    void aForwardRunLaunchesOnlyItsOrdersKernelAndFreesEverything() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 300, 2, 4, 64, 5);
        AttentionProblem p = new AttentionProblem(1, 8, 2, 300, 300, 64, DType.FP16, 0.1, 20);
        for (NsaGpu.Forward f : new NsaGpu.Forward[] {NsaGpu.Forward.TILE, NsaGpu.Forward.WARP}) {
            FakeDriver driver = new FakeDriver(1L << 34);
            driver.kernels.addAll(NsaGpu.allNames());
            try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake")) {
                gpu.forwardOrder(f);
                gpu.forward(AttentionInputs.random(p, 1, false), sel);
                String kernel = f == NsaGpu.Forward.TILE ? "nsa_fwd_fp16_d64_b64" : "nsa_fwd_warp_fp16_d64_b64";
                assertEquals(List.of(kernel), kernelsOf(driver.launched), f.name());
                assertTrue(driver.live.isEmpty(), "every buffer freed, " + f);
            }
        }
    }

    @Test
    void anUnknownForwardOrderIsRefusedWithTheValidOnes() {
        String before = System.getProperty(NsaGpu.Forward.PROPERTY);
        System.setProperty(NsaGpu.Forward.PROPERTY, "gather");
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, NsaGpu.Forward::configured);
            assertEquals("saw.nsa.fwd / SAW_NSA_FWD is 'gather'; it must be tile, warp or auto", e.getMessage());
            System.setProperty(NsaGpu.Forward.PROPERTY, " Warp ");
            assertEquals(NsaGpu.Forward.WARP, NsaGpu.Forward.configured());
        } finally {
            if (before == null) {
                System.clearProperty(NsaGpu.Forward.PROPERTY);
            } else {
                System.setProperty(NsaGpu.Forward.PROPERTY, before);
            }
        }
    }

    @Test
    void theWarpForwardIsPickedFromFourHeadsPerKvHeadAndTheTileBelow() {
        for (int g = 1; g <= 64; g++) {
            assertEquals(g >= 4 ? NsaGpu.Forward.WARP : NsaGpu.Forward.TILE, NsaGpu.Forward.AUTO.resolve(g), "G " + g);
            for (NsaGpu.Forward f : new NsaGpu.Forward[] {NsaGpu.Forward.TILE, NsaGpu.Forward.WARP}) {
                assertEquals(f, f.resolve(g), "an explicit order stays, G " + g);
            }
        }
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
            assertEquals(List.of("nsa_fwd_warp_bf16_d128_b32", "bwd_pre_bf16_d128", "nsa_bwd_bf16_d128_b32", "bwd_dq_bf16"),
                    kernelsOf(driver.launched));
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
                gpu.forwardOrder(NsaGpu.Forward.values()[n % 3]);  // tile, warp, auto
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
    void timedRunsNameTheirKernel() throws BadSelection {
        FakeDriver driver = new FakeDriver(1L << 34);
        driver.kernels.addAll(NsaGpu.allNames());
        NsaSelection sel = NsaSelections.random(1, 256, 1, 4, 32, 5);
        AttentionProblem p = new AttentionProblem(1, 4, 1, 256, 256, 64, DType.FP16, 0.1, 30);
        try (NsaGpu gpu = NsaGpu.open(driver, new byte[16], "fake");
             var run = gpu.prepare(p, sel, Pass.BWD, 3)) {
            assertEquals("nsa_bwd_fp16_d64_b32_softcap", run.kernelName());
            run.runTimedMs();
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
}
