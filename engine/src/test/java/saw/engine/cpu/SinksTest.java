package saw.engine.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.FloatBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionOutputs.Output;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.FloatArrays;
import saw.engine.attention.OutputComparison;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

class SinksTest {
    private static final int[] BLOCKS = {32, 64, 128};
    private static final double FP32_TOLERANCE = 1e-4;

    @Test
    void blockSparseWithSinksMatchesTheFp64ReferenceIncludingDsink() {
        long master = Long.getLong("saw.test.seed", 0x51CCL);
        try (CpuBackend cpu = new CpuBackend()) {
            int checked = 0;
            for (int n = 0; n < 40; n++) {
                long seed = master * 1_000_003L + n;
                try {
                    checked += checkOne(cpu, seed) ? 1 : 0;
                } catch (AssertionError | RuntimeException e) {
                    fail("case " + n + " failed; replay with -Dsaw.test.seed=" + master + " (case seed " + seed + "): "
                            + e.getMessage(), e);
                }
            }
            assertTrue(checked >= 20, "only " + checked + " random masks were valid");
        }
    }

    private static boolean checkOne(CpuBackend cpu, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Dims base = RandomMasks.randomDims(rnd, 160);
        Mask mask = new RandomMasks(rnd, base).mask(2);
        int group = 1 + rnd.nextInt(2);
        Dims dims = new Dims(base.seqQ(), base.seqKv(), base.batch(), base.heads() * group);
        if (!MaskChecks.check(mask, base).isEmpty() || !MaskChecks.check(mask, dims).isEmpty()) {
            return false;
        }
        int d = rnd.nextBoolean() ? 16 : 32;
        double softcap = rnd.nextInt(3) == 0 ? 2 + rnd.nextInt(20) : 0;
        AttentionProblem p = new AttentionProblem(dims.batch(), dims.heads(), base.heads(), dims.seqQ(), dims.seqKv(), d,
                rnd.nextBoolean() ? DType.BF16 : DType.FP16, 1.0 / Math.sqrt(d), softcap);
        BoundMask bound = BoundMask.bind(mask, dims);
        TileLayout layout = bound.compile(BLOCKS[rnd.nextInt(3)], BLOCKS[rnd.nextInt(3)]);
        AttentionInputs in = AttentionInputs.random(p, seed, true).withSinks(AttentionInputs.randomSinks(p.heads(), seed));
        AttentionOutputs got = cpu.forwardBackward(in, layout);
        AttentionOutputs ref = ReferenceAttention.compute(in, bound, true);
        boolean sawDsink = false;
        for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
            assertEquals(0, e.nans(), e.output().label() + " holds NaN; " + mask + " " + p);
            assertTrue(e.relError() <= FP32_TOLERANCE, e.output().label() + " relative error " + e.relError() + "; " + mask + " " + p);
            sawDsink |= e.output() == Output.DSINK && e.compared() == p.heads();
        }
        assertTrue(sawDsink, "dSink was not compared");
        java.nio.FloatBuffer scale = ref.dsinkScale();
        assertEquals(p.heads(), scale.remaining(), "the reference gives dSink's term scale per head");
        for (int h = 0; h < p.heads(); h++) {
            assertTrue(scale.get(h) >= Math.abs(ref.get(Output.DSINK).get(h)) * (1 - 1e-6),
                    "the sum of |terms| bounds |dSink| on head " + h + "; " + mask + " " + p);
        }
        return true;
    }

    @Test
    void referenceDsinkMatchesFiniteDifferencesOfTheLoss() {
        long seed = 77;
        AttentionProblem p = new AttentionProblem(2, 4, 2, 48, 48, 16, DType.FP16, 0.25, 0);
        Dims dims = new Dims(48, 48, 2, 4);
        BoundMask bound = BoundMask.bind(new Mask.SlidingWindow(12, 0), dims);
        AttentionInputs base = AttentionInputs.random(p, seed, true);
        float[] sinks = AttentionInputs.randomSinks(p.heads(), seed);
        AttentionOutputs out = ReferenceAttention.compute(base.withSinks(sinks), bound, true);
        float[] dO = FloatArrays.copyOf(base.dO());
        double step = 1e-2;
        for (int h = 0; h < p.heads(); h++) {
            float[] up = sinks.clone();
            float[] down = sinks.clone();
            up[h] += (float) step;
            down[h] -= (float) step;
            double lossUp = loss(ReferenceAttention.compute(base.withSinks(up), bound, false), dO);
            double lossDown = loss(ReferenceAttention.compute(base.withSinks(down), bound, false), dO);
            double numeric = (lossUp - lossDown) / (up[h] - down[h]);
            double analytic = out.get(Output.DSINK).get(h);
            assertEquals(numeric, analytic, 2e-3 * Math.max(1, Math.abs(numeric)), "dSink[" + h + "]");
        }
    }

    /** sum(dO * O): its gradient through O is what the backward pass computes. */
    private static double loss(AttentionOutputs out, float[] dO) {
        FloatBuffer o = out.get(Output.O);
        double s = 0;
        for (int i = 0; i < dO.length; i++) {
            s += (double) dO[i] * o.get(i);
        }
        return s;
    }

    @Test
    void sinkRescalesOutputsThroughTheLseAsFlexAttentionUsersDo() {
        AttentionProblem p = new AttentionProblem(1, 2, 1, 40, 40, 16, DType.BF16, 0.25, 5);
        BoundMask bound = BoundMask.bind(new Mask.Causal(0), new Dims(40, 40, 1, 2));
        AttentionInputs plain = AttentionInputs.random(p, 5, false);
        float[] sinks = {1.5f, -0.75f};
        AttentionOutputs without = ReferenceAttention.compute(plain, bound, false);
        AttentionOutputs with = ReferenceAttention.compute(plain.withSinks(sinks), bound, false);
        for (int r = 0; r < 80; r++) {
            double lse = without.get(Output.LSE).get(r);
            double sink = sinks[r / 40];
            double merged = Math.max(lse, sink) + Math.log1p(Math.exp(-Math.abs(lse - sink)));
            assertEquals(merged, with.get(Output.LSE).get(r), 1e-5, "LSE of row " + r);
            for (int x = 0; x < 16; x++) {
                assertEquals(without.get(Output.O).get(r * 16 + x) * Math.exp(lse - merged), with.get(Output.O).get(r * 16 + x),
                        1e-5, "O of row " + r);
            }
        }
    }

    @Test
    void rowsThatAttendNothingTakeTheSinkAsLseAndGiveZeroOutput() {
        Mask mask = Mask.Documents.ofLengths(15, 25); // tokens 40..63 attend nothing
        Dims dims = new Dims(64, 64, 1, 1);
        AttentionProblem p = AttentionProblem.of(1, 1, 1, 64, 64, 16, DType.BF16);
        BoundMask bound = BoundMask.bind(mask, dims);
        AttentionInputs in = AttentionInputs.random(p, 9, true).withSinks(new float[] {0.5f});
        try (CpuBackend cpu = new CpuBackend()) {
            for (AttentionOutputs out : new AttentionOutputs[] {cpu.forwardBackward(in, bound.compile(32, 32)),
                    ReferenceAttention.compute(in, bound, true)}) {
                for (int r = 40; r < 64; r++) {
                    assertEquals(0.5f, out.get(Output.LSE).get(r), "LSE of padding row " + r);
                    assertEquals(0f, out.get(Output.O).get(r * 16), "O of padding row " + r);
                    assertEquals(0f, out.get(Output.DQ).get(r * 16), "dQ of padding row " + r);
                }
                assertTrue(Float.isFinite(out.get(Output.DSINK).get(0)));
            }
        }
    }

    @Test
    void badSinkVectorsAreRefusedNamingWhatIsWrong() {
        AttentionInputs in = AttentionInputs.random(AttentionProblem.of(1, 4, 2, 8, 8, 16, DType.BF16), 1, false);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> in.withSinks(new float[3])).getMessage()
                .contains("one per head (4)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> in.withSinks(new float[] {0, 1, Float.NaN, 0}))
                .getMessage().startsWith("sinks[2]"));
    }
}
