package saw.engine.attention;

import java.nio.FloatBuffer;
import java.util.SplittableRandom;

/**
 * Host tensors of one attention call, every value already representable in the problem's dtype:
 * Q [batch, heads, seqQ, headDim], K and V [batch, kvHeads, seqKv, headDim], and for the backward pass the
 * output gradient dO, shaped like Q; optionally learned sink logits (gpt-oss {@code softmax_aux}), fp32, one per q
 * head: each row's softmax denominator gains exp(sink - rowmax) with no value behind it. Views are read-only.
 */
public final class AttentionInputs {
    private final AttentionProblem problem;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final float[] dO;
    private final float[] sinks;

    private AttentionInputs(AttentionProblem problem, float[] q, float[] k, float[] v, float[] dO, float[] sinks) {
        this.problem = problem;
        this.q = q;
        this.k = k;
        this.v = v;
        this.dO = dO;
        this.sinks = sinks;
    }

    /**
     * The same tensors with one sink logit per q head (copied; fp32, any finite value).
     *
     * @throws IllegalArgumentException naming the first bad entry
     */
    public AttentionInputs withSinks(float[] sinkLogits) {
        if (sinkLogits == null || sinkLogits.length != problem.heads()) {
            throw new IllegalArgumentException("sinks has " + (sinkLogits == null ? "no" : sinkLogits.length)
                    + " values, the problem needs one per head (" + problem.heads() + ")");
        }
        for (int h = 0; h < sinkLogits.length; h++) {
            if (!Float.isFinite(sinkLogits[h])) {
                throw new IllegalArgumentException("sinks[" + h + "] is " + sinkLogits[h] + "; sink logits must be finite");
            }
        }
        return new AttentionInputs(problem, q, k, v, dO, sinkLogits.clone());
    }

    /**
     * Random sink logits for {@code heads} heads drawn from {@code seed}: uniform in [-2, 4), a range where the sink
     * takes a visible share of short rows and a small one of long rows.
     */
    public static float[] randomSinks(int heads, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed ^ 0x5171c5L);
        float[] s = new float[heads];
        for (int h = 0; h < heads; h++) {
            s[h] = (float) (-2 + 6 * rnd.nextDouble());
        }
        return s;
    }

    public boolean hasSinks() {
        return sinks != null;
    }

    /** The sink logits, or an empty buffer when these inputs have none. */
    public FloatBuffer sinks() {
        return sinks == null ? FloatBuffer.allocate(0) : FloatBuffer.wrap(sinks).asReadOnlyBuffer();
    }

    /**
     * Fresh inputs drawn from {@code seed}: standard normal values rounded to the dtype (never zeros).
     *
     * @param withGradient whether to draw dO too
     */
    public static AttentionInputs random(AttentionProblem p, long seed, boolean withGradient) {
        SplittableRandom rnd = new SplittableRandom(seed);
        return new AttentionInputs(p, draw(p, rnd, qSize(p)), draw(p, rnd, kvSize(p)), draw(p, rnd, kvSize(p)),
                withGradient ? draw(p, rnd, qSize(p)) : null, null);
    }

    /** Inputs from given values (copied, rounded to the dtype); {@code dO} may be null for a forward pass. */
    public static AttentionInputs of(AttentionProblem p, float[] q, float[] k, float[] v, float[] dO) {
        check("q", q, qSize(p));
        check("k", k, kvSize(p));
        check("v", v, kvSize(p));
        if (dO != null) {
            check("dO", dO, qSize(p));
        }
        return new AttentionInputs(p, rounded(p, q), rounded(p, k), rounded(p, v), dO == null ? null : rounded(p, dO), null);
    }

    public AttentionProblem problem() {
        return problem;
    }

    public FloatBuffer q() {
        return FloatBuffer.wrap(q).asReadOnlyBuffer();
    }

    public FloatBuffer k() {
        return FloatBuffer.wrap(k).asReadOnlyBuffer();
    }

    public FloatBuffer v() {
        return FloatBuffer.wrap(v).asReadOnlyBuffer();
    }

    /** dO, or an empty buffer when these inputs are for a forward pass only. */
    public FloatBuffer dO() {
        return dO == null ? FloatBuffer.allocate(0) : FloatBuffer.wrap(dO).asReadOnlyBuffer();
    }

    public boolean hasGradient() {
        return dO != null;
    }

    /**
     * These inputs, for a backward pass.
     *
     * @throws IllegalArgumentException when they have no dO
     */
    public AttentionInputs requireGradient() {
        if (dO == null) {
            throw new IllegalArgumentException("the backward pass needs inputs with dO");
        }
        return this;
    }

    /** Elements of Q, O, dO and dQ. */
    public static long qSize(AttentionProblem p) {
        return checkedSize((long) p.batch() * p.heads() * p.seqQ() * p.headDim());
    }

    /** Elements of K, V, dK and dV. */
    public static long kvSize(AttentionProblem p) {
        return checkedSize((long) p.batch() * p.kvHeads() * p.seqKv() * p.headDim());
    }

    private static long checkedSize(long n) {
        if (n > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("a tensor of " + n + " elements is too large for host arrays (at most "
                    + (Integer.MAX_VALUE - 16) + "); use fewer batch entries, heads or tokens");
        }
        return n;
    }

    private static float[] draw(AttentionProblem p, SplittableRandom rnd, long n) {
        float[] x = new float[(int) n];
        for (int i = 0; i < x.length; i++) {
            float f;
            do {
                f = HalfFloats.round(p.dtype(), (float) gaussian(rnd));
            } while (f == 0f);
            x[i] = f;
        }
        return x;
    }

    /** Box-Muller; SplittableRandom has no nextGaussian in Java 17. */
    private static double gaussian(SplittableRandom rnd) {
        double u = 1.0 - rnd.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }

    private static float[] rounded(AttentionProblem p, float[] x) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = HalfFloats.round(p.dtype(), x[i]);
        }
        return out;
    }

    private static void check(String name, float[] x, long expected) {
        if (x == null || x.length != expected) {
            throw new IllegalArgumentException(name + " has " + (x == null ? "no" : x.length) + " elements, the problem needs "
                    + expected);
        }
    }
}
