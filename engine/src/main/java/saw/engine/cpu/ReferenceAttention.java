package saw.engine.cpu;

import java.util.Arrays;
import java.util.stream.IntStream;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.FloatArrays;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;

/**
 * Exact attention in fp64, dense over every token pair, straight from {@link BoundMask#attends}: the oracle the
 * kernels are checked against. Cost grows with Sq * Skv per head, so large problems compute only chosen kv-head
 * groups (every q head that shares the kv head); outputs outside them are NaN. With sink logits, each row's
 * denominator gains exp(sink - max) and dSink[h] = -sum over the head's rows of exp(sink - LSE) * rowsum(dO * O).
 */
public final class ReferenceAttention {
    private ReferenceAttention() {}

    /** Every head. */
    public static AttentionOutputs compute(AttentionInputs in, BoundMask mask, boolean backward) {
        AttentionProblem p = in.problem();
        return compute(in, mask, backward, IntStream.range(0, p.batch() * p.kvHeads()).toArray());
    }

    /**
     * Only the given kv-head groups, index {@code b * kvHeads + hkv}.
     *
     * @param backward whether to compute dQ, dK, dV too (the inputs must hold dO)
     */
    public static AttentionOutputs compute(AttentionInputs in, BoundMask mask, boolean backward, int[] groups) {
        AttentionProblem p = in.problem();
        if (backward && !in.hasGradient()) {
            throw new IllegalArgumentException("the backward reference needs inputs with dO");
        }
        SizeGuard.reference(p, backward).orThrow();
        int d = p.headDim();
        float[] q = FloatArrays.copyOf(in.q());
        float[] k = FloatArrays.copyOf(in.k());
        float[] v = FloatArrays.copyOf(in.v());
        float[] dO = backward ? FloatArrays.copyOf(in.dO()) : null;
        float[] o = FloatArrays.nan(q.length);
        float[] lse = FloatArrays.nan(p.batch() * p.heads() * p.seqQ());
        float[] dq = backward ? FloatArrays.nan(q.length) : null;
        float[] dk = backward ? FloatArrays.nan(k.length) : null;
        float[] dv = backward ? FloatArrays.nan(v.length) : null;
        float[] sinks = in.hasSinks() ? FloatArrays.copyOf(in.sinks()) : null;
        float[] dsink = backward && sinks != null ? FloatArrays.nan(p.heads()) : null;
        double[] dsinkAcc = dsink == null ? null : new double[p.heads()];
        double[] dsinkAbs = dsink == null ? null : new double[p.heads()];
        boolean[] touched = new boolean[p.heads()];
        int group = p.heads() / p.kvHeads();
        for (int bkvh : groups) {
            int b = bkvh / p.kvHeads();
            int hkv = bkvh % p.kvHeads();
            long kvBase = (long) bkvh * p.seqKv() * d;
            double[] kd = toDouble(k, kvBase, p.seqKv() * d);
            double[] vd = toDouble(v, kvBase, p.seqKv() * d);
            double[] dkAcc = backward ? new double[p.seqKv() * d] : null;
            double[] dvAcc = backward ? new double[p.seqKv() * d] : null;
            for (int hg = 0; hg < group; hg++) {
                int h = hkv * group + hg;
                double sink = sinks == null ? Double.NaN : sinks[h];
                Head head = new Head(p, mask.variantOf(b, h), mask, kd, vd, q, dO, (long) (b * p.heads() + h) * p.seqQ(), sink);
                double g = head.run(o, lse, dq, dkAcc, dvAcc);
                if (dsinkAcc != null) {
                    dsinkAcc[h] += g;
                    dsinkAbs[h] += head.sinkTermsAbs;
                    touched[h] = true;
                }
            }
            if (backward) {
                for (int x = 0; x < dkAcc.length; x++) {
                    dk[(int) (kvBase + x)] = (float) (p.scale() * dkAcc[x]);
                    dv[(int) (kvBase + x)] = (float) dvAcc[x];
                }
            }
        }
        if (dsink != null) {
            float[] scale = FloatArrays.nan(p.heads());
            for (int h = 0; h < p.heads(); h++) {
                if (touched[h] && groups.length == p.batch() * p.kvHeads()) {
                    dsink[h] = (float) dsinkAcc[h];
                    scale[h] = (float) dsinkAbs[h];
                }
            }
            return AttentionOutputs.withGradients(o, lse, dq, dk, dv).withSinkGradient(dsink, scale);
        }
        return backward ? AttentionOutputs.withGradients(o, lse, dq, dk, dv) : AttentionOutputs.forward(o, lse);
    }

    /** One q head against its kv head; rows run in parallel, each worker with its own dK/dV sums. */
    private static final class Head {
        private final AttentionProblem p;
        private final int variant;
        private final BoundMask mask;
        private final double[] k;
        private final double[] v;
        private final float[] q;
        private final float[] dO;
        private final long rowBase;
        /** The head's sink logit, NaN when there is none. */
        private final double sink;
        /** After {@link #run}: the sum over rows of |the row's term of the sink gradient|. */
        double sinkTermsAbs;

        Head(AttentionProblem p, int variant, BoundMask mask, double[] k, double[] v, float[] q, float[] dO, long rowBase,
             double sink) {
            this.sink = sink;
            this.p = p;
            this.variant = variant;
            this.mask = mask;
            this.k = k;
            this.v = v;
            this.q = q;
            this.dO = dO;
            this.rowBase = rowBase;
        }

        /** Returns this head's sink gradient (0 without sinks or without a backward pass). */
        double run(float[] o, float[] lse, float[] dq, double[] dkAcc, double[] dvAcc) {
            int workers = Math.max(1, Math.min(p.seqQ(), Runtime.getRuntime().availableProcessors()));
            double[][] dkPart = new double[workers][];
            double[][] dvPart = new double[workers][];
            double[] sinkGrad = new double[p.seqQ()];
            IntStream.range(0, workers).parallel().forEach(w -> {
                double[] dkW = dkAcc == null ? null : new double[dkAcc.length];
                double[] dvW = dvAcc == null ? null : new double[dvAcc.length];
                Row row = new Row(p.seqKv(), p.headDim());
                for (int i = w; i < p.seqQ(); i += workers) {
                    sinkGrad[i] = row.compute(i, o, lse, dq, dkW, dvW);
                }
                dkPart[w] = dkW;
                dvPart[w] = dvW;
            });
            if (dkAcc != null) {
                for (int w = 0; w < workers; w++) {
                    for (int x = 0; x < dkAcc.length; x++) {
                        dkAcc[x] += dkPart[w][x];
                        dvAcc[x] += dvPart[w][x];
                    }
                }
            }
            double g = 0;
            double abs = 0;
            for (double x : sinkGrad) {
                g += x;
                abs += Math.abs(x);
            }
            sinkTermsAbs = abs;
            return g;
        }

        /** Scratch for one query row. */
        private final class Row {
            final double[] z;
            final double[] prob;
            final double[] dcap;
            final int[] cols;
            final double[] qi;
            final double[] oi;
            final double[] gi;
            final double[] dqi;

            Row(int skv, int d) {
                z = new double[skv];
                prob = new double[skv];
                dcap = new double[skv];
                cols = new int[skv];
                qi = new double[d];
                oi = new double[d];
                gi = new double[d];
                dqi = new double[d];
            }

            /** Returns the row's term of the sink gradient. */
            double compute(int i, float[] o, float[] lse, float[] dq, double[] dkW, double[] dvW) {
                int d = p.headDim();
                long at = (rowBase + i) * d;
                for (int x = 0; x < d; x++) {
                    qi[x] = q[(int) (at + x)];
                }
                int n = 0;
                double max = Double.NEGATIVE_INFINITY;
                double cap = p.softcap();
                for (int j = 0; j < p.seqKv(); j++) {
                    if (!mask.attends(variant, i, j)) {
                        continue;
                    }
                    double s = 0;
                    int kj = j * d;
                    for (int x = 0; x < d; x++) {
                        s += qi[x] * k[kj + x];
                    }
                    s *= p.scale();
                    if (cap > 0) {
                        double th = Math.tanh(s / cap);
                        s = cap * th;
                        dcap[n] = 1 - th * th;
                    } else {
                        dcap[n] = 1;
                    }
                    cols[n] = j;
                    z[n++] = s;
                    max = Math.max(max, s);
                }
                Arrays.fill(oi, 0);
                boolean hasSink = !Double.isNaN(sink);
                if (n == 0) {
                    lse[(int) (rowBase + i)] = hasSink ? (float) sink : Float.NEGATIVE_INFINITY;
                    for (int x = 0; x < d; x++) {
                        o[(int) (at + x)] = 0f;
                        if (dq != null) {
                            dq[(int) (at + x)] = 0f;
                        }
                    }
                    return 0;
                }
                if (hasSink) {
                    max = Math.max(max, sink);
                }
                double sum = hasSink ? Math.exp(sink - max) : 0;
                for (int c = 0; c < n; c++) {
                    prob[c] = Math.exp(z[c] - max);
                    sum += prob[c];
                }
                for (int c = 0; c < n; c++) {
                    prob[c] /= sum;
                    int vj = cols[c] * d;
                    for (int x = 0; x < d; x++) {
                        oi[x] += prob[c] * v[vj + x];
                    }
                }
                double rowLse = max + Math.log(sum);
                lse[(int) (rowBase + i)] = (float) rowLse;
                for (int x = 0; x < d; x++) {
                    o[(int) (at + x)] = (float) oi[x];
                }
                if (dq == null) {
                    return 0;
                }
                double rowD = 0;
                for (int x = 0; x < d; x++) {
                    gi[x] = dO[(int) (at + x)];
                    rowD += gi[x] * oi[x];
                }
                Arrays.fill(dqi, 0);
                for (int c = 0; c < n; c++) {
                    int j = cols[c] * d;
                    double dp = 0;
                    for (int x = 0; x < d; x++) {
                        dp += gi[x] * v[j + x];
                    }
                    double ds = prob[c] * (dp - rowD) * dcap[c];
                    for (int x = 0; x < d; x++) {
                        dqi[x] += ds * k[j + x];
                        dkW[j + x] += ds * qi[x];
                        dvW[j + x] += prob[c] * gi[x];
                    }
                }
                for (int x = 0; x < d; x++) {
                    dq[(int) (at + x)] = (float) (p.scale() * dqi[x]);
                }
                return hasSink ? -Math.exp(sink - rowLse) * rowD : 0;
            }
        }
    }

    private static double[] toDouble(float[] a, long from, int n) {
        double[] out = new double[n];
        for (int x = 0; x < n; x++) {
            out[x] = a[(int) (from + x)];
        }
        return out;
    }
}
