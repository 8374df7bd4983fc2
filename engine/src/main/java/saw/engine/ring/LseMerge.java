package saw.engine.ring;

import java.nio.FloatBuffer;
import java.util.Arrays;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionOutputs.Output;

/**
 * Combines the partial results of a ring as each device does, step by step in fp32: the forward merges (O, LSE)
 * pairs by their log-sum-exp, the backward sums the gradient contributions of every step. A part whose row attends
 * nothing has LSE -inf and adds nothing.
 */
public final class LseMerge {
    private final int headDim;
    private final float[] o;
    private final float[] lse;
    private float[] dq;
    private float[] dk;
    private float[] dv;
    private int parts;

    /** An empty accumulator for {@code rows} rows of O of {@code headDim} values. */
    public LseMerge(int rows, int headDim) {
        this.headDim = headDim;
        this.o = new float[Math.multiplyExact(rows, headDim)];
        this.lse = new float[rows];
        Arrays.fill(lse, Float.NEGATIVE_INFINITY);
    }

    /** Merges one part's O and LSE. */
    public void addForward(AttentionOutputs part) {
        FloatBuffer po = part.get(Output.O);
        FloatBuffer pl = part.get(Output.LSE);
        if (pl.remaining() != lse.length || po.remaining() != o.length) {
            throw new IllegalArgumentException("a part with " + pl.remaining() + " rows, the merge has " + lse.length);
        }
        for (int r = 0; r < lse.length; r++) {
            float b = pl.get(r);
            if (b == Float.NEGATIVE_INFINITY) {
                continue;
            }
            float a = lse[r];
            float m = Math.max(a, b);
            double wa = a == Float.NEGATIVE_INFINITY ? 0 : Math.exp(a - m);
            double wb = Math.exp(b - m);
            double sum = wa + wb;
            lse[r] = (float) (m + Math.log(sum));
            float ca = (float) (wa / sum);
            float cb = (float) (wb / sum);
            for (int x = r * headDim, end = x + headDim; x < end; x++) {
                o[x] = ca * o[x] + cb * po.get(x);
            }
        }
        parts++;
    }

    /** Adds one part's dQ, dK and dV. */
    public void addGradients(AttentionOutputs part) {
        if (!part.hasGradients()) {
            throw new IllegalArgumentException("a part without gradients");
        }
        dq = add(dq, part.get(Output.DQ));
        dk = add(dk, part.get(Output.DK));
        dv = add(dv, part.get(Output.DV));
    }

    /** Parts merged by {@link #addForward}. */
    public int parts() {
        return parts;
    }

    /** O and LSE so far, with the summed gradients when any were added. */
    public AttentionOutputs result() {
        if (dq == null) {
            return AttentionOutputs.forward(o.clone(), lse.clone());
        }
        return AttentionOutputs.withGradients(o.clone(), lse.clone(), dq.clone(), dk.clone(), dv.clone());
    }

    private static float[] add(float[] acc, FloatBuffer part) {
        if (acc == null) {
            acc = new float[part.remaining()];
        } else if (acc.length != part.remaining()) {
            throw new IllegalArgumentException("a gradient of " + part.remaining() + " elements, the sum has " + acc.length);
        }
        for (int i = 0; i < acc.length; i++) {
            acc[i] += part.get(i);
        }
        return acc;
    }
}
