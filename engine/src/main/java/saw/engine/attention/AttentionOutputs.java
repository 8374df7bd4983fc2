package saw.engine.attention;

import java.nio.FloatBuffer;

/**
 * What a kernel computed: O (shaped like Q), LSE [batch, heads, seqQ] (natural log, -inf for rows that attend
 * nothing; with sinks, the sink's term is in it), after a backward pass dQ, dK, dV (empty buffers after a forward
 * pass), and with sinks after a backward pass dSink [heads] (else empty). Views are read-only.
 */
public final class AttentionOutputs {
    private final float[] o;
    private final float[] lse;
    private final float[] dq;
    private final float[] dk;
    private final float[] dv;
    private final float[] dsink;

    private AttentionOutputs(float[] o, float[] lse, float[] dq, float[] dk, float[] dv, float[] dsink) {
        this.o = o;
        this.lse = lse;
        this.dq = dq;
        this.dk = dk;
        this.dv = dv;
        this.dsink = dsink;
    }

    /** These outputs with the sinks' gradient added; takes ownership of the array. */
    public AttentionOutputs withSinkGradient(float[] dsinkPerHead) {
        return new AttentionOutputs(o, lse, dq, dk, dv, dsinkPerHead);
    }

    /** Takes ownership of the arrays (callers hand over fresh ones). */
    public static AttentionOutputs forward(float[] o, float[] lse) {
        return new AttentionOutputs(o, lse, null, null, null, null);
    }

    /** Takes ownership of the arrays (callers hand over fresh ones). */
    public static AttentionOutputs withGradients(float[] o, float[] lse, float[] dq, float[] dk, float[] dv) {
        return new AttentionOutputs(o, lse, dq, dk, dv, null);
    }

    public boolean hasGradients() {
        return dq != null;
    }

    /** One output by name: O, LSE, dQ, dK, dV, dSink. */
    public FloatBuffer get(Output which) {
        float[] a;
        switch (which) {
            case O: a = o; break;
            case LSE: a = lse; break;
            case DQ: a = dq; break;
            case DK: a = dk; break;
            case DV: a = dv; break;
            default: a = dsink; break;
        }
        return a == null ? FloatBuffer.allocate(0) : FloatBuffer.wrap(a).asReadOnlyBuffer();
    }

    /** The outputs of attention, in the order reports list them. */
    public enum Output {
        O("O"), LSE("LSE"), DQ("dQ"), DK("dK"), DV("dV"), DSINK("dSink");

        private final String label;

        Output(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public boolean isGradient() {
            return ordinal() >= DQ.ordinal();
        }
    }
}
