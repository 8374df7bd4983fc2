package saw.engine.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionOutputs.Output;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.cpu.CpuBackend;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

class LseMergeTest {
    private static final double FP32_TOLERANCE = 1e-4;

    @Test
    void mergedRingOnTheCpuBackendMatchesTheSingleDeviceRunAndTheFp64Reference() {
        long master = Long.getLong("saw.test.seed", 0x12167L);
        int checked = 0;
        try (CpuBackend cpu = new CpuBackend()) {
            for (int n = 0; n < 40; n++) {
                long seed = master * 1_000_003L + n;
                try {
                    checked += checkOne(cpu, seed) ? 1 : 0;
                } catch (AssertionError | RuntimeException e) {
                    fail("case " + n + " failed; replay with seed " + seed + ": " + e.getMessage(), e);
                }
            }
        }
        assertTrue(checked > 20, "only " + checked + " random masks were valid");
    }

    private static boolean checkOne(CpuBackend cpu, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int seq = 96 + rnd.nextInt(220);
        int heads = 1 + rnd.nextInt(2);
        int kvHeads = rnd.nextBoolean() ? heads : 1;
        Dims dims = new Dims(seq, seq, 1 + rnd.nextInt(2), heads);
        RandomMasks masks = new RandomMasks(rnd, dims);
        Mask mask = rnd.nextInt(3) == 0 ? new Mask.PerHead(List.of(masks.mask(1), new Mask.Causal(0))) : masks.mask(2);
        if (!MaskChecks.check(mask, dims).isEmpty()) {
            return false;
        }
        int block = rnd.nextBoolean() ? 32 : 64;
        TileLayout layout = BoundMask.bind(mask, dims).compile(block, block);
        int devices = 2 + rnd.nextInt(Math.min(4, (seq + block - 1) / block - 1));
        RingScheme scheme = RingScheme.values()[rnd.nextInt(RingScheme.values().length)];
        if (scheme == RingScheme.ZIGZAG && layout.numQBlocks() < 2 * devices) {
            scheme = RingScheme.STRIPED;
        }
        AttentionProblem p = new AttentionProblem(dims.batch(), heads, kvHeads, seq, seq, 16, DType.BF16, 0.25,
                rnd.nextInt(3) == 0 ? 5 : 0);
        RingPlan plan = RingPlanner.plan(layout, devices, scheme, RingModel.defaults(heads));
        AttentionInputs in = AttentionInputs.random(p, seed, true);
        AttentionOutputs merged = RingRun.run(cpu, plan, in, true, (d, s, k) -> { });
        AttentionOutputs single = cpu.forwardBackward(in, layout);
        AttentionOutputs ref = ReferenceAttention.compute(in, layout.mask(), true);
        String what = scheme.label() + " N=" + devices + " ";
        for (OutputComparison.Error e : OutputComparison.compare(merged, single)) {
            assertTrue(e.passes(FP32_TOLERANCE), what + "against one device: " + e);
        }
        for (OutputComparison.Error e : OutputComparison.compare(merged, ref)) {
            assertTrue(e.passes(FP32_TOLERANCE), what + "against fp64: " + e);
        }
        return true;
    }

    @Test
    void rowsNoPartAttendsKeepLseMinusInfinityAndZeroOutput() {
        LseMerge merge = new LseMerge(2, 2);
        float inf = Float.NEGATIVE_INFINITY;
        merge.addForward(AttentionOutputs.forward(new float[] {0, 0, 1, 2}, new float[] {inf, 0}));
        merge.addForward(AttentionOutputs.forward(new float[] {0, 0, 3, 4}, new float[] {inf, 0}));
        AttentionOutputs out = merge.result();
        assertEquals(inf, out.get(Output.LSE).get(0));
        assertEquals((float) Math.log(2), out.get(Output.LSE).get(1), 1e-7);
        assertEquals(0f, out.get(Output.O).get(0));
        assertEquals(2f, out.get(Output.O).get(2), 1e-6);
        assertEquals(3f, out.get(Output.O).get(3), 1e-6);
        assertEquals(2, merge.parts());
    }
}
