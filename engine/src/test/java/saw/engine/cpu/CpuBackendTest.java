package saw.engine.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.FloatBuffer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionOutputs.Output;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.Pass;
import saw.engine.attention.TileLists;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

class CpuBackendTest {
    private static final int[] BLOCKS = {32, 64, 128};
    private static final double FP32_TOLERANCE = 1e-4;

    @Test
    void blockSparseForwardAndBackwardMatchTheFp64ReferenceOnRandomMasks() {
        long master = Long.getLong("saw.test.seed", 0xC0DEL);
        try (CpuBackend cpu = new CpuBackend()) {
            for (int n = 0; n < 60; n++) {
                long seed = master * 1_000_003L + n;
                try {
                    checkOne(cpu, seed);
                } catch (AssertionError | RuntimeException e) {
                    fail("case " + n + " failed; replay with seed " + seed + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private static void checkOne(CpuBackend cpu, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Dims base = RandomMasks.randomDims(rnd, 200);
        Mask mask = new RandomMasks(rnd, base).mask(2);
        if (!MaskChecks.check(mask, base).isEmpty()) {
            return;
        }
        int group = 1 + rnd.nextInt(2);
        Dims dims = new Dims(base.seqQ(), base.seqKv(), base.batch(), base.heads() * group);
        if (!MaskChecks.check(mask, dims).isEmpty()) {
            return;
        }
        int d = rnd.nextBoolean() ? 16 : 64;
        DType type = rnd.nextBoolean() ? DType.BF16 : DType.FP16;
        double softcap = rnd.nextInt(3) == 0 ? 2 + rnd.nextInt(20) : 0;
        AttentionProblem p = new AttentionProblem(dims.batch(), dims.heads(), base.heads(), dims.seqQ(), dims.seqKv(), d, type,
                1.0 / Math.sqrt(d), softcap);
        BoundMask bound = BoundMask.bind(mask, dims);
        TileLayout layout = bound.compile(BLOCKS[rnd.nextInt(3)], BLOCKS[rnd.nextInt(3)]);
        AttentionInputs in = AttentionInputs.random(p, seed, true);
        AttentionOutputs got = cpu.forwardBackward(in, layout);
        AttentionOutputs ref = ReferenceAttention.compute(in, bound, true);
        for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
            assertEquals(0, e.nans(), e.output().label() + " holds NaN; " + mask + " " + p);
            assertTrue(e.relError() <= FP32_TOLERANCE, e.output().label() + " relative error " + e.relError() + "; " + mask + " " + p);
        }
    }

    @Test
    void splitBackwardColumnsGiveTheReferenceGradients() {
        // sinks and global tokens make columns that every q-tile lists; the backward walks them in parts (TileLists)
        long seed = Long.getLong("saw.test.seed", 0x5117L);
        List<Mask> masks = List.of(
                new Mask.And(List.of(new Mask.Causal(0), new Mask.Or(List.of(new Mask.SlidingWindow(64, 0), new Mask.Sinks(3))))),
                new Mask.Or(List.of(new Mask.SlidingWindow(40, 40), new Mask.GlobalTokens(IntArray.of(5, 700)))));
        try (CpuBackend cpu = new CpuBackend()) {
            for (Mask mask : masks) {
                Dims dims = new Dims(1000, 1000, 1, 4);
                AttentionProblem p = new AttentionProblem(1, 4, 2, 1000, 1000, 16, DType.BF16, 0.25, 0);
                BoundMask bound = BoundMask.bind(mask, dims);
                TileLayout layout = bound.compile(32, 32);
                assertTrue(TileLists.of(p, layout).colPartCount() > 0, "the plan splits " + mask);
                AttentionInputs in = AttentionInputs.random(p, seed, true);
                AttentionOutputs got = cpu.forwardBackward(in, layout);
                AttentionOutputs ref = ReferenceAttention.compute(in, bound, true);
                for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
                    assertEquals(0, e.nans(), e.output().label() + " holds NaN; " + mask + " (seed " + seed + ")");
                    assertTrue(e.relError() <= FP32_TOLERANCE, e.output().label() + " relative error " + e.relError()
                            + "; " + mask + " (seed " + seed + ")");
                }
            }
        }
    }

    @Test
    void rowsThatAttendNothingGiveZeroOutputAndMinusInfinityLse() {
        // tokens 40..63 are padding: they attend nothing
        Mask mask = Mask.Documents.ofLengths(15, 25);
        Dims dims = new Dims(64, 64, 1, 1);
        AttentionProblem p = AttentionProblem.of(1, 1, 1, 64, 64, 16, DType.BF16);
        BoundMask bound = BoundMask.bind(mask, dims);
        AttentionInputs in = AttentionInputs.random(p, 3, true);
        try (CpuBackend cpu = new CpuBackend()) {
            AttentionOutputs out = cpu.forwardBackward(in, bound.compile(32, 32));
            AttentionOutputs ref = ReferenceAttention.compute(in, bound, true);
            for (AttentionOutputs x : List.of(out, ref)) {
                FloatBuffer lse = x.get(Output.LSE);
                FloatBuffer o = x.get(Output.O);
                FloatBuffer dq = x.get(Output.DQ);
                for (int i = 40; i < 64; i++) {
                    assertEquals(Float.NEGATIVE_INFINITY, lse.get(i));
                    for (int c = 0; c < 16; c++) {
                        assertEquals(0f, o.get(i * 16 + c));
                        assertEquals(0f, dq.get(i * 16 + c));
                    }
                }
                FloatBuffer dk = x.get(Output.DK);
                for (int e = 40 * 16; e < 64 * 16; e++) {
                    assertEquals(0f, dk.get(e), "padding keys get no gradient");
                }
            }
        }
    }

    @Test
    void referenceOfOneAttendedKeyReturnsItsValueAndScore() {
        // causal with Sq = Skv: query 0 attends key 0 only, so O[0] = V[0] and LSE[0] = scale * q0.k0
        AttentionProblem p = AttentionProblem.of(1, 1, 1, 2, 2, 4, DType.FP16);
        float[] q = {1, 2, 0.5f, -1, 0, 0, 0, 0};
        float[] k = {0.25f, 1, 2, 0.5f, 1, 1, 1, 1};
        float[] v = {3, -2, 0.5f, 7, 1, 1, 1, 1};
        AttentionInputs in = AttentionInputs.of(p, q, k, v, null);
        AttentionOutputs out = ReferenceAttention.compute(in, BoundMask.bind(new Mask.Causal(0), new Dims(2, 2, 1, 1)), false);
        FloatBuffer o = out.get(Output.O);
        for (int c = 0; c < 4; c++) {
            assertEquals(v[c], o.get(c), 1e-6);
        }
        assertEquals(0.5 * (0.25 + 2 + 1 - 0.5), out.get(Output.LSE).get(0), 1e-6);
        assertEquals(0, out.get(Output.DQ).remaining(), "no gradients after a forward pass");
    }

    @Test
    void referenceBackendGivesTheReferenceAndRefusesOtherSizes() {
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 96, 96, 16, DType.FP16);
        BoundMask bound = BoundMask.bind(new Mask.SlidingWindow(20, 0), new Dims(96, 96, 1, 2));
        AttentionInputs in = AttentionInputs.random(p, 9, true);
        try (ReferenceBackend ref = new ReferenceBackend()) {
            AttentionOutputs got = ref.forwardBackward(in, bound.compile(32, 32));
            for (OutputComparison.Error e : OutputComparison.compare(got, ReferenceAttention.compute(in, bound, true))) {
                assertEquals(0, e.relError(), e.output().label());
            }
            TileLayout other = BoundMask.bind(new Mask.Causal(0), new Dims(64, 64, 1, 2)).compile(32, 32);
            assertTrue(assertThrows(IllegalArgumentException.class,
                    () -> ref.forward(in, other)).getMessage().contains("Sq=64"));
            try (AttentionBackend.PreparedRun run = ref.prepare(p, bound.compile(32, 32), Pass.FWD, 1)) {
                assertEquals("reference_fwd_fp64_dense", run.kernelName());
                assertTrue(run.runTimedMs() >= 0);
            }
        }
    }

    @Test
    void preparedRunsTimeBothPassesAndNameTheirKernel() {
        AttentionProblem p = AttentionProblem.of(1, 2, 1, 128, 128, 16, DType.BF16);
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(128, 128, 1, 2)).compile(64, 32);
        try (CpuBackend cpu = new CpuBackend()) {
            for (Pass pass : Pass.values()) {
                try (AttentionBackend.PreparedRun run = cpu.prepare(p, layout, pass, 5)) {
                    assertEquals("cpu_" + pass.label() + "_fp32_q64_kv32", run.kernelName());
                    assertTrue(run.runTimedMs() >= 0);
                }
            }
        }
    }
}
