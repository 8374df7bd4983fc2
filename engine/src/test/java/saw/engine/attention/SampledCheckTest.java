package saw.engine.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

class SampledCheckTest {
    /** fp64 sums of fp32-rounded outputs: the sampled reference agrees with the dense one to fp32 rounding. */
    private static final double FP32_TOLERANCE = 1e-5;

    private static final Mask[] MASKS = {
        Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(40, 0)),
        Mask.And.of(new Mask.Causal(0), Mask.Or.of(new Mask.SlidingWindow(40, 0), Mask.GlobalTokens.first(4))),
        Mask.And.of(new Mask.Causal(0), Mask.Documents.ofLengths(70, 50, 30)),
        new Mask.ChunkedCausal(64),
        new Mask.PerHead(List.of(new Mask.Causal(0), new Mask.ChunkedCausal(32))),
    };

    @Test
    void sampledRowsOfTheDenseReferenceMatchTheSampledReference() {
        for (int trial = 0; trial < 20; trial++) {
            long seed = 1000 + trial;
            SplittableRandom rnd = new SplittableRandom(seed);
            Mask mask = MASKS[trial % MASKS.length];
            int seq = 150 + rnd.nextInt(100);
            double softcap = trial % 3 == 0 ? 5 + rnd.nextInt(10) : 0;
            AttentionProblem p = new AttentionProblem(1 + rnd.nextInt(2), 4, 2, seq, seq, 16, DType.BF16, 0.25, softcap);
            Dims dims = new Dims(seq, seq, p.batch(), p.heads());
            BoundMask bound = BoundMask.bind(mask, dims);
            TileLayout layout = bound.compile(32, 16 << rnd.nextInt(2));
            AttentionInputs in = AttentionInputs.random(p, seed, true);
            AttentionOutputs ref = ReferenceAttention.compute(in, bound, true);
            SampledCheck.Result r = SampledCheck.check(p, layout, true, RunRows.of(in, ref), 5, seed);
            assertEquals(5, r.errors().size(), "seed " + seed);
            for (OutputComparison.Error e : r.errors()) {
                assertTrue(e.compared() > 0, e.output().label() + " compared nothing; seed " + seed);
                assertTrue(e.passes(FP32_TOLERANCE), e.output().label() + " " + e.relError() + "; seed " + seed + " " + mask);
            }
            assertEquals(p.batch() * p.heads() * 5, r.queryRows().size(), "seed " + seed);
            assertTrue(r.queryRows().contains(new SampledCheck.Row(0, 3, seq - 1)), "the last row is always checked");
            assertEquals(p.batch() * p.kvHeads() * 5, r.kvRows().size(), "seed " + seed);
        }
    }

    @Test
    void aWrongValueInASampledRowFailsTheCheck() {
        long seed = 7;
        AttentionProblem p = new AttentionProblem(1, 2, 1, 128, 128, 16, DType.BF16, 0.25, 0);
        Dims dims = new Dims(128, 128, 1, 2);
        BoundMask bound = BoundMask.bind(new Mask.Causal(0), dims);
        TileLayout layout = bound.compile(32, 32);
        AttentionInputs in = AttentionInputs.random(p, seed, true);
        AttentionOutputs ref = ReferenceAttention.compute(in, bound, true);
        RunRows exact = RunRows.of(in, ref);
        SampledCheck.Row wrong = SampledCheck.queryRows(p, 3, seed).get(4);
        RunRows broken = (t, b, h, from, n) -> {
            float[] a = exact.rows(t, b, h, from, n);
            if (t == RunRows.Tensor.DQ && b == wrong.batch() && h == wrong.head() && from <= wrong.token() && wrong.token() < from + n) {
                a[(wrong.token() - from) * p.headDim()] += 1f;
            }
            return a;
        };
        SampledCheck.Result r = SampledCheck.check(p, layout, true, broken, 3, seed);
        for (OutputComparison.Error e : r.errors()) {
            boolean dq = e.output() == AttentionOutputs.Output.DQ;
            assertEquals(!dq, e.passes(1e-3), e.output().label() + " " + e.relError());
        }
    }

    @Test
    void sinkKvRowsAttendedByEveryQueryRowAreNotChecked() {
        // every query row attends the 4 sinks; with 2^18 + 1 query rows over the group a sink row is too costly
        int seq = (1 << 17) + 64;
        AttentionProblem p = new AttentionProblem(1, 2, 1, seq, seq, 16, DType.BF16, 0.25, 0);
        Dims dims = new Dims(seq, seq, 1, 2);
        BoundMask bound = BoundMask.bind(Mask.GlobalTokens.first(4), dims);
        TileLayout layout = bound.compile(128, 128);
        SampledCheck.Result r = SampledCheck.check(p, layout, true, (t, b, h, from, n) -> new float[t == RunRows.Tensor.LSE ? n : n * 16], 1, 3);
        assertTrue(r.kvRows().stream().noneMatch(row -> row.token() < 4), "a sink row was checked: " + r.kvRows());
        assertEquals(1, r.kvRows().size(), "rows attended by nothing cost nothing and are checked");
    }
}
