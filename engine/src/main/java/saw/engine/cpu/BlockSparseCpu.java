package saw.engine.cpu;

import java.util.Arrays;
import java.util.stream.IntStream;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.TileLists;

/**
 * Block-sparse attention in fp32 on the CPU, walking the same tables as the GPU kernels: per q-block the PARTIAL
 * kv-tiles (token mask from the bit tiles) then the FULL ones (no mask test); EMPTY tiles are never visited.
 * Forward items run in parallel; the backward pass computes dQ over rows and dK/dV over columns, so no two
 * workers write the same element. Sink logits (null when none) join each row's denominator at the end of the forward;
 * the backward needs nothing else for them (the sink-including LSE normalises P), plus dSink from LSE and rowsum(dO*O).
 */
final class BlockSparseCpu {
    private final AttentionProblem p;
    private final TileLists t;
    private final int[] variantOf;
    private final int[] rowPtr;
    private final int[] rowPartial;
    private final int[] rowKv;
    private final int[] rowMask;
    private final int[] colPtr;
    private final int[] colPartial;
    private final int[] colQ;
    private final int[] colMask;
    private final int[] bits;
    private final int nq;
    private final int nkv;
    private final int bq;
    private final int bkv;
    private final int d;
    private final float scale;
    private final float cap;
    private final float[] sinks;

    BlockSparseCpu(AttentionProblem p, TileLists t, float[] sinks) {
        this.sinks = sinks;
        this.p = p;
        this.t = t;
        this.variantOf = t.variantOf();
        this.rowPtr = t.rowPtr();
        this.rowPartial = t.rowPartial();
        this.rowKv = t.rowKv();
        this.rowMask = t.rowMask();
        this.colPtr = t.colPtr();
        this.colPartial = t.colPartial();
        this.colQ = t.colQ();
        this.colMask = t.colMask();
        this.bits = t.bits();
        this.nq = t.numQBlocks();
        this.nkv = t.numKvBlocks();
        this.bq = t.blockQ();
        this.bkv = t.blockKv();
        this.d = p.headDim();
        this.scale = (float) p.scale();
        this.cap = (float) p.softcap();
    }

    /** Fills o and lse. */
    void forward(float[] q, float[] k, float[] v, float[] o, float[] lse) {
        int[] order = t.rowOrder();
        IntStream.range(0, order.length).parallel().forEach(x -> forwardItem(order[x], q, k, v, o, lse));
    }

    private void forwardItem(int item, float[] q, float[] k, float[] v, float[] o, float[] lse) {
        int qb = item % nq;
        int bh = item / nq;
        int h = bh % p.heads();
        int b = bh / p.heads();
        int hkv = h / (p.heads() / p.kvHeads());
        int row = variantOf[bh] * nq + qb;
        int q0 = qb * bq;
        int rows = Math.min(p.seqQ(), q0 + bq) - q0;
        long qBase = ((long) bh * p.seqQ() + q0) * d;
        long kvBase = (long) (b * p.kvHeads() + hkv) * p.seqKv() * d;
        float[] m = new float[rows];
        float[] l = new float[rows];
        float[] acc = new float[rows * d];
        float[] s = new float[bkv];
        Arrays.fill(m, Float.NEGATIVE_INFINITY);
        for (int e = rowPtr[row]; e < rowPtr[row + 1]; e++) {
            boolean partial = e - rowPtr[row] < rowPartial[row];
            int k0 = rowKv[e] * bkv;
            int cols = Math.min(p.seqKv(), k0 + bkv) - k0;
            int tileBits = partial ? rowMask[e] * bq * (bkv / 32) : -1;
            for (int i = 0; i < rows; i++) {
                int qi = (int) (qBase + (long) i * d);
                float mx = m[i];
                for (int j = 0; j < cols; j++) {
                    if (partial && !attends(tileBits, bkv / 32, i, j)) {
                        s[j] = Float.NEGATIVE_INFINITY;
                        continue;
                    }
                    float z = logit(dot(q, qi, k, (int) (kvBase + (long) (k0 + j) * d)));
                    s[j] = z;
                    mx = Math.max(mx, z);
                }
                if (mx == Float.NEGATIVE_INFINITY) {
                    continue;
                }
                float alpha = (float) Math.exp(m[i] - mx);
                m[i] = mx;
                float sum = 0;
                int ai = i * d;
                for (int x = 0; x < d; x++) {
                    acc[ai + x] *= alpha;
                }
                for (int j = 0; j < cols; j++) {
                    if (s[j] == Float.NEGATIVE_INFINITY) {
                        continue;
                    }
                    float pj = (float) Math.exp(s[j] - mx);
                    sum += pj;
                    int vj = (int) (kvBase + (long) (k0 + j) * d);
                    for (int x = 0; x < d; x++) {
                        acc[ai + x] += pj * v[vj + x];
                    }
                }
                l[i] = l[i] * alpha + sum;
            }
        }
        if (sinks != null) {
            float sink = sinks[h];
            for (int i = 0; i < rows; i++) {
                float mx = Math.max(m[i], sink);
                float alpha = (float) Math.exp(m[i] - mx);
                l[i] = l[i] * alpha + (float) Math.exp(sink - mx);
                for (int x = 0; x < d; x++) {
                    acc[i * d + x] *= alpha;
                }
                m[i] = mx;
            }
        }
        for (int i = 0; i < rows; i++) {
            float inv = l[i] > 0 ? 1f / l[i] : 0f;
            int oi = (int) (qBase + (long) i * d);
            for (int x = 0; x < d; x++) {
                o[oi + x] = acc[i * d + x] * inv;
            }
            lse[bh * p.seqQ() + q0 + i] = l[i] > 0 ? (float) (m[i] + Math.log(l[i])) : Float.NEGATIVE_INFINITY;
        }
    }

    /** Fills dq, dk, dv (and dsink when there are sinks; else it may be null) from dO and the forward's o and lse. */
    void backward(float[] q, float[] k, float[] v, float[] dO, float[] o, float[] lse, float[] dq, float[] dk, float[] dv,
                  float[] dsink) {
        float[] rowD = new float[lse.length];
        IntStream.range(0, lse.length).parallel().forEach(r -> {
            float s = 0;
            for (int x = 0; x < d; x++) {
                s += dO[r * d + x] * o[r * d + x];
            }
            rowD[r] = s;
        });
        if (sinks != null) {
            sinkGradient(lse, rowD, dsink);
        }
        int[] rows = t.rowOrder();
        IntStream.range(0, rows.length).parallel().forEach(x -> dqItem(rows[x], q, k, v, dO, lse, rowD, dq));
        // as the GPU launches it: split items in parts of their lists, each part's sums added afterwards in part order
        int[] launch = t.colLaunch();
        int[] parts = t.colParts();
        int[] starts = t.colPartStarts();
        float[][] slots = new float[t.colPartCount()][];
        IntStream.range(0, launch.length).parallel().forEach(x -> {
            int e = launch[x];
            if (e >= 0) {
                writeDkDv(e, dkdvSums(e, 0, Integer.MAX_VALUE, q, k, v, dO, lse, rowD), dk, dv);
            } else {
                int s = ~e;
                slots[s] = dkdvSums(parts[3 * s], parts[3 * s + 1], parts[3 * s + 2], q, k, v, dO, lse, rowD);
            }
        });
        for (int i = 0; i + 1 < starts.length; i++) {
            float[] sum = new float[slots[starts[i]].length];
            for (int s = starts[i]; s < starts[i + 1]; s++) {
                for (int x = 0; x < sum.length; x++) {
                    sum[x] += slots[s][x];
                }
            }
            writeDkDv(parts[3 * starts[i]], sum, dk, dv);
        }
    }

    private void dqItem(int item, float[] q, float[] k, float[] v, float[] dO, float[] lse, float[] rowD, float[] dq) {
        int qb = item % nq;
        int bh = item / nq;
        int h = bh % p.heads();
        int b = bh / p.heads();
        int hkv = h / (p.heads() / p.kvHeads());
        int row = variantOf[bh] * nq + qb;
        int q0 = qb * bq;
        int rows = Math.min(p.seqQ(), q0 + bq) - q0;
        long kvBase = (long) (b * p.kvHeads() + hkv) * p.seqKv() * d;
        float[] acc = new float[rows * d];
        for (int e = rowPtr[row]; e < rowPtr[row + 1]; e++) {
            boolean partial = e - rowPtr[row] < rowPartial[row];
            int k0 = rowKv[e] * bkv;
            int cols = Math.min(p.seqKv(), k0 + bkv) - k0;
            int tileBits = partial ? rowMask[e] * bq * (bkv / 32) : -1;
            for (int i = 0; i < rows; i++) {
                int r = bh * p.seqQ() + q0 + i;
                int qi = r * d;
                for (int j = 0; j < cols; j++) {
                    if (partial && !attends(tileBits, bkv / 32, i, j)) {
                        continue;
                    }
                    int kj = (int) (kvBase + (long) (k0 + j) * d);
                    float ds = dScore(q, qi, k, kj, v, dO, lse[r], rowD[r]);
                    for (int x = 0; x < d; x++) {
                        acc[i * d + x] += ds * k[kj + x];
                    }
                }
            }
        }
        for (int i = 0; i < rows; i++) {
            int qi = (bh * p.seqQ() + q0 + i) * d;
            for (int x = 0; x < d; x++) {
                dq[qi + x] = scale * acc[i * d + x];
            }
        }
    }

    /**
     * The scaled dK sums then the dV sums ({@code cols x d} each) of work item {@code item} over entries [from, to)
     * of its column lists taken one after the other over the heads of its GQA group (all of them: 0 to MAX_VALUE).
     */
    private float[] dkdvSums(int item, int from, int to, float[] q, float[] k, float[] v, float[] dO, float[] lse,
                             float[] rowD) {
        int kb = item % nkv;
        int bkvh = item / nkv;
        int hkv = bkvh % p.kvHeads();
        int b = bkvh / p.kvHeads();
        int group = p.heads() / p.kvHeads();
        int k0 = kb * bkv;
        int cols = Math.min(p.seqKv(), k0 + bkv) - k0;
        long kvBase = (long) bkvh * p.seqKv() * d;
        float[] acc = new float[2 * cols * d];
        int accV = cols * d;
        int walked = 0;  // entries of the group's lists before this head's
        for (int g = 0; g < group; g++) {
            int bh = b * p.heads() + hkv * group + g;
            int col = variantOf[bh] * nkv + kb;
            int first = Math.max(colPtr[col], colPtr[col] + from - walked);
            int end = (int) Math.min(colPtr[col + 1], colPtr[col] + (long) to - walked);
            walked += colPtr[col + 1] - colPtr[col];
            for (int e = first; e < end; e++) {
                boolean partial = e - colPtr[col] < colPartial[col];
                int qb = colQ[e];
                int q0 = qb * bq;
                int rows = Math.min(p.seqQ(), q0 + bq) - q0;
                int tileBits = partial ? colMask[e] * bq * (bkv / 32) : -1;
                for (int i = 0; i < rows; i++) {
                    int r = bh * p.seqQ() + q0 + i;
                    int qi = r * d;
                    for (int j = 0; j < cols; j++) {
                        if (partial && !attends(tileBits, bkv / 32, i, j)) {
                            continue;
                        }
                        int kj = (int) (kvBase + (long) (k0 + j) * d);
                        float z = logit(dot(q, qi, k, kj));
                        float pr = (float) Math.exp(z - lse[r]);
                        float dp = dot(dO, qi, v, kj);
                        float ds = pr * (dp - rowD[r]) * capFactor(z);
                        for (int x = 0; x < d; x++) {
                            acc[j * d + x] += ds * q[qi + x];
                            acc[accV + j * d + x] += pr * dO[qi + x];
                        }
                    }
                }
            }
        }
        for (int x = 0; x < accV; x++) {
            acc[x] *= scale;
        }
        return acc;
    }

    /** dK and dV of work item {@code item}'s kv tile from {@link #dkdvSums}'s layout. */
    private void writeDkDv(int item, float[] sums, float[] dk, float[] dv) {
        int cols = sums.length / (2 * d);
        long kvBase = (long) (item / nkv) * p.seqKv() * d + (long) (item % nkv) * bkv * d;
        for (int x = 0; x < cols * d; x++) {
            dk[(int) (kvBase + x)] = sums[x];
            dv[(int) (kvBase + x)] = sums[cols * d + x];
        }
    }

    /** dSink[h] = -sum over the head's rows (every batch entry) of exp(sink - LSE) * rowsum(dO * O). */
    private void sinkGradient(float[] lse, float[] rowD, float[] dsink) {
        IntStream.range(0, p.heads()).parallel().forEach(h -> {
            double g = 0;
            for (int b = 0; b < p.batch(); b++) {
                int r0 = (b * p.heads() + h) * p.seqQ();
                for (int i = 0; i < p.seqQ(); i++) {
                    g -= Math.exp(sinks[h] - lse[r0 + i]) * rowD[r0 + i];
                }
            }
            dsink[h] = (float) g;
        });
    }

    /** dS for one pair, without the scale factor. */
    private float dScore(float[] q, int qi, float[] k, int kj, float[] v, float[] dO, float lse, float rowD) {
        float z = logit(dot(q, qi, k, kj));
        float pr = (float) Math.exp(z - lse);
        return pr * (dot(dO, qi, v, kj) - rowD) * capFactor(z);
    }

    private float logit(float s) {
        s *= scale;
        return cap > 0 ? cap * (float) Math.tanh(s / cap) : s;
    }

    /** d(capped logit)/d(scaled score) = 1 - tanh^2, from the capped logit. */
    private float capFactor(float z) {
        if (cap <= 0) {
            return 1f;
        }
        float th = z / cap;
        return 1f - th * th;
    }

    private boolean attends(int tileBits, int wordsPerRow, int i, int j) {
        return (bits[tileBits + i * wordsPerRow + (j >>> 5)] >>> (j & 31) & 1) != 0;
    }

    private float dot(float[] a, int ai, float[] b, int bi) {
        float s = 0;
        for (int x = 0; x < d; x++) {
            s += a[ai + x] * b[bi + x];
        }
        return s;
    }
}
