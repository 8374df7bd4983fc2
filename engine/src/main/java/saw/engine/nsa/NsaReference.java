package saw.engine.nsa;

import java.util.Arrays;
import java.util.stream.IntStream;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.FloatArrays;

/**
 * NSA selected attention in fp64, token by token straight from the selection: the oracle for the CPU backend and the
 * kernels. Large problems compute only chosen (batch, kv head) groups; outputs elsewhere are NaN.
 */
public final class NsaReference {
    private NsaReference() {}

    /** Null when the selection fits the problem, else a sentence saying what differs. */
    public static String mismatch(AttentionProblem p, NsaSelection sel) {
        if (p.seqQ() != p.seqKv()) {
            return "NSA is self-attention: q length " + p.seqQ() + " must equal kv length " + p.seqKv();
        }
        if (sel.batch() != p.batch() || sel.seqLen() != p.seqQ() || sel.kvHeads() != p.kvHeads()) {
            return "the NSA selection is [batch " + sel.batch() + ", tokens " + sel.seqLen() + ", kv heads " + sel.kvHeads()
                    + "] but the problem is [batch " + p.batch() + ", tokens " + p.seqQ() + ", kv heads " + p.kvHeads() + "]";
        }
        return null;
    }

    static void check(AttentionProblem p, NsaSelection sel) {
        String why = mismatch(p, sel);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
    }

    public static AttentionOutputs compute(AttentionInputs in, NsaSelection sel, boolean backward) {
        AttentionProblem p = in.problem();
        return compute(in, sel, backward, IntStream.range(0, p.batch() * p.kvHeads()).toArray());
    }

    /** Only the groups {@code b * kvHeads + hkv} listed. */
    public static AttentionOutputs compute(AttentionInputs in, NsaSelection sel, boolean backward, int[] groups) {
        AttentionProblem p = in.problem();
        check(p, sel);
        if (backward && !in.hasGradient()) {
            throw new IllegalArgumentException("the backward reference needs inputs with dO");
        }
        int d = p.headDim();
        int seq = p.seqQ();
        int group = p.heads() / p.kvHeads();
        float[] q = FloatArrays.copyOf(in.q());
        float[] k = FloatArrays.copyOf(in.k());
        float[] v = FloatArrays.copyOf(in.v());
        float[] dO = backward ? FloatArrays.copyOf(in.dO()) : null;
        float[] o = FloatArrays.nan(q.length);
        float[] lse = FloatArrays.nan(p.batch() * p.heads() * seq);
        float[] dq = backward ? FloatArrays.nan(q.length) : null;
        float[] dk = backward ? FloatArrays.nan(k.length) : null;
        float[] dv = backward ? FloatArrays.nan(v.length) : null;
        // every (group, query head) in parallel, each with its own dK/dV sums, added per group afterwards
        int[][] work = new int[groups.length * group][];
        for (int i = 0; i < groups.length; i++) {
            for (int hg = 0; hg < group; hg++) {
                work[i * group + hg] = new int[] {groups[i], hg};
            }
        }
        double[][] dkPart = new double[work.length][];
        double[][] dvPart = new double[work.length][];
        IntStream.range(0, work.length).parallel().forEach(w -> {
            int plane = work[w][0];
            int hg = work[w][1];
            int b = plane / p.kvHeads();
            int hkv = plane % p.kvHeads();
            long kvBase = (long) plane * seq * d;
            double[] dkAcc = backward ? new double[seq * d] : null;
            double[] dvAcc = backward ? new double[seq * d] : null;
            int[] blocks = new int[sel.maxSelected()];
            int[] cols = new int[sel.maxSelected() * sel.blockSize()];
            double[] z = new double[cols.length];
            double[] prob = new double[cols.length];
            double[] dcap = new double[cols.length];
            double[] oi = new double[d];
            double[] dqi = new double[d];
            {
                int h = hkv * group + hg;
                long rowBase = ((long) b * p.heads() + h) * seq;
                for (int t = 0; t < seq; t++) {
                    long at = (rowBase + t) * d;
                    int nb = sel.blocks(b, t, hkv, blocks);
                    int n = 0;
                    double max = Double.NEGATIVE_INFINITY;
                    for (int s = 0; s < nb; s++) {
                        int k0 = blocks[s] * sel.blockSize();
                        for (int j = k0; j < k0 + sel.keysInBlock(t, blocks[s]); j++) {
                            double dot = 0;
                            for (int x = 0; x < d; x++) {
                                dot += (double) q[(int) (at + x)] * k[(int) (kvBase + (long) j * d + x)];
                            }
                            double sc = dot * p.scale();
                            if (p.softcap() > 0) {
                                double th = Math.tanh(sc / p.softcap());
                                sc = p.softcap() * th;
                                dcap[n] = 1 - th * th;
                            } else {
                                dcap[n] = 1;
                            }
                            cols[n] = j;
                            z[n++] = sc;
                            max = Math.max(max, sc);
                        }
                    }
                    if (n == 0) {
                        lse[(int) (rowBase + t)] = Float.NEGATIVE_INFINITY;
                        for (int x = 0; x < d; x++) {
                            o[(int) (at + x)] = 0f;
                            if (backward) {
                                dq[(int) (at + x)] = 0f;
                            }
                        }
                        continue;
                    }
                    double sum = 0;
                    for (int c = 0; c < n; c++) {
                        prob[c] = Math.exp(z[c] - max);
                        sum += prob[c];
                    }
                    Arrays.fill(oi, 0);
                    for (int c = 0; c < n; c++) {
                        prob[c] /= sum;
                        for (int x = 0; x < d; x++) {
                            oi[x] += prob[c] * v[(int) (kvBase + (long) cols[c] * d + x)];
                        }
                    }
                    lse[(int) (rowBase + t)] = (float) (max + Math.log(sum));
                    for (int x = 0; x < d; x++) {
                        o[(int) (at + x)] = (float) oi[x];
                    }
                    if (!backward) {
                        continue;
                    }
                    double rowD = 0;
                    for (int x = 0; x < d; x++) {
                        rowD += dO[(int) (at + x)] * oi[x];
                    }
                    Arrays.fill(dqi, 0);
                    for (int c = 0; c < n; c++) {
                        int j = cols[c] * d;
                        double dp = 0;
                        for (int x = 0; x < d; x++) {
                            dp += dO[(int) (at + x)] * (double) v[(int) (kvBase + j + x)];
                        }
                        double ds = prob[c] * (dp - rowD) * dcap[c];
                        for (int x = 0; x < d; x++) {
                            dqi[x] += ds * k[(int) (kvBase + j + x)];
                            dkAcc[j + x] += ds * q[(int) (at + x)];
                            dvAcc[j + x] += prob[c] * dO[(int) (at + x)];
                        }
                    }
                    for (int x = 0; x < d; x++) {
                        dq[(int) (at + x)] = (float) (p.scale() * dqi[x]);
                    }
                }
            }
            dkPart[w] = dkAcc;
            dvPart[w] = dvAcc;
        });
        if (backward) {
            for (int i = 0; i < groups.length; i++) {
                long kvBase = (long) groups[i] * seq * d;
                for (int x = 0; x < seq * d; x++) {
                    double sk = 0;
                    double sv = 0;
                    for (int hg = 0; hg < group; hg++) {
                        sk += dkPart[i * group + hg][x];
                        sv += dvPart[i * group + hg][x];
                    }
                    dk[(int) (kvBase + x)] = (float) (p.scale() * sk);
                    dv[(int) (kvBase + x)] = (float) sv;
                }
            }
        }
        return backward ? AttentionOutputs.withGradients(o, lse, dq, dk, dv) : AttentionOutputs.forward(o, lse);
    }
}
