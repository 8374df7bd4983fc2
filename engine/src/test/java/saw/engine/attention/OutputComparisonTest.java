package saw.engine.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionOutputs.Output;

class OutputComparisonTest {
    private static FloatBuffer of(float... x) {
        return FloatBuffer.wrap(x);
    }

    @Test
    void relativeErrorIsTheNormOfTheDifferenceOverTheNormOfTheReference() {
        OutputComparison.Error e = OutputComparison.compare(Output.O, of(3, 4.5f), of(3, 4));
        assertEquals(0.1, e.relError(), 1e-12);
        assertEquals(2, e.compared());
        assertTrue(e.passes(0.1));
        assertFalse(e.passes(0.09));
    }

    @Test
    void dSinkIsJudgedAgainstItsTermsScaleWhenTheReferenceGivesIt() {
        // head 0's terms cancel to 0.01 of their magnitudes' sum (1.0): an error of 0.005 is 0.5% of what was summed
        AttentionOutputs ref = AttentionOutputs.withGradients(new float[1], new float[1], new float[1], new float[1],
                new float[1]).withSinkGradient(new float[] {0.01f, -0.02f}, new float[] {1f, 2f});
        AttentionOutputs near = AttentionOutputs.withGradients(new float[1], new float[1], new float[1], new float[1],
                new float[1]).withSinkGradient(new float[] {0.015f, -0.02f});
        OutputComparison.Error e = OutputComparison.compare(near, ref).get(5);
        assertEquals(Output.DSINK, e.output());
        assertEquals(0.005 / Math.sqrt(5), e.relError(), 1e-7);
        assertTrue(OutputComparison.compare(Output.DSINK, of(0.015f, -0.02f), of(0.01f, -0.02f)).relError() > 0.2,
                "the plain relative error would call it 22%");
        AttentionOutputs wrong = AttentionOutputs.withGradients(new float[1], new float[1], new float[1], new float[1],
                new float[1]).withSinkGradient(new float[] {0.01f, 0.5f});
        assertTrue(OutputComparison.compare(wrong, ref).get(5).relError() > 0.2, "a wrong head still fails");
    }

    @Test
    void nanInTheOutputFailsEvenWhereTheReferenceWasNotComputed() {
        OutputComparison.Error e = OutputComparison.compare(Output.DQ, of(1, Float.NaN, 2), of(1, Float.NaN, Float.NaN));
        assertEquals(1, e.nans());
        assertEquals(1, e.compared(), "elements the sampled reference skipped are not compared");
        assertFalse(e.passes(1));
    }

    @Test
    void infinitiesMustMatchExactly() {
        float ninf = Float.NEGATIVE_INFINITY;
        assertEquals(0, OutputComparison.compare(Output.LSE, of(ninf, 1), of(ninf, 1)).relError());
        assertEquals(Double.POSITIVE_INFINITY, OutputComparison.compare(Output.LSE, of(-50, 1), of(ninf, 1)).relError());
    }

    @Test
    void gradientsAreComparedOnlyAfterABackwardPass() {
        AttentionOutputs fwd = AttentionOutputs.forward(new float[] {1}, new float[] {0});
        assertEquals(2, OutputComparison.compare(fwd, fwd).size());
        AttentionOutputs all = AttentionOutputs.withGradients(new float[] {1}, new float[] {0}, new float[] {1}, new float[] {1},
                new float[] {1});
        assertEquals(5, OutputComparison.compare(all, all).size());
    }
}
