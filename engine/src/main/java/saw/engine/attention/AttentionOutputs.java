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
    /** A reference's per-head sum of |term| of dSink's sum over rows, or null (see {@link #dsinkScale}). */
    private final float[] dsinkScale;

    private AttentionOutputs(float[] o, float[] lse, float[] dq, float[] dk, float[] dv, float[] dsink, float[] dsinkScale) {
        this.o = o;
        this.lse = lse;
        this.dq = dq;
        this.dk = dk;
        this.dv = dv;
        this.dsink = dsink;
        this.dsinkScale = dsinkScale;
    }

    /** These outputs with the sinks' gradient added; takes ownership of the array. */
    public AttentionOutputs withSinkGradient(float[] dsinkPerHead) {
        return new AttentionOutputs(o, lse, dq, dk, dv, dsinkPerHead, null);
    }

    /**
     * A reference's outputs with the sinks' gradient and, per head, the sum over rows of |exp(sink - LSE) * rowsum(dO
     * * O)|: dSink is a sum of those terms, whose signs differ, so a kernel's error in it follows this sum, not |dSink|
     * (the terms can cancel to a small fraction of it). Takes ownership of the arrays.
     */
    public AttentionOutputs withSinkGradient(float[] dsinkPerHead, float[] termScalePerHead) {
        return new AttentionOutputs(o, lse, dq, dk, dv, dsinkPerHead, termScalePerHead);
    }

    /** The reference's dSink term scale per head ({@link #withSinkGradient(float[], float[])}), or an empty buffer. */
    public FloatBuffer dsinkScale() {
        return dsinkScale == null ? FloatBuffer.allocate(0) : FloatBuffer.wrap(dsinkScale).asReadOnlyBuffer();
    }

    /** Takes ownership of the arrays (callers hand over fresh ones). */
    public static AttentionOutputs forward(float[] o, float[] lse) {
        return new AttentionOutputs(o, lse, null, null, null, null, null);
    }

    /** Takes ownership of the arrays (callers hand over fresh ones). */
    public static AttentionOutputs withGradients(float[] o, float[] lse, float[] dq, float[] dk, float[] dv) {
        return new AttentionOutputs(o, lse, dq, dk, dv, null, null);
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
