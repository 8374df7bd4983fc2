package saw.engine.nsa;

import java.util.stream.IntStream;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.FloatArrays;

/**
 * NSA selected attention on the CPU in fp32, on every core: the forward and dQ per query row, dK and dV per kv-block
 * by gathering the tokens that chose it ({@link ChosenBy}), so no two threads write one element. The same loop orders
 * as the kernels, so the tests against {@link NsaReference} check the orders too.
 */
public final class NsaCpu implements NsaKernels {
    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public AttentionOutputs forward(AttentionInputs in, NsaSelection sel) {
        return run(in, sel, false);
    }

    @Override
    public AttentionOutputs forwardBackward(AttentionInputs in, NsaSelection sel) {
        return run(in.requireGradient(), sel, true);
    }

    @Override
    public void close() {}

    /** A query row's token, the kv-blocks its (batch, kv-head) selected for it, and where that K/V plane starts. */
    private static final class Row {
        final int t;
        final int[] blocks;
        final int nb;
        final long kvBase;

        private Row(int t, int[] blocks, int nb, long kvBase) {
            this.t = t;
            this.blocks = blocks;
            this.nb = nb;
            this.kvBase = kvBase;
        }

        static Row of(AttentionProblem p, NsaSelection sel, int row) {
            int seq = p.seqQ();
            int heads = p.heads();
            int t = row % seq;
            int bh = row / seq;
            int b = bh / heads;
            int hkv = bh % heads / (heads / p.kvHeads());
            int[] blocks = new int[sel.maxSelected()];
            int nb = sel.blocks(b, t, hkv, blocks);
            return new Row(t, blocks, nb, ((long) b * p.kvHeads() + hkv) * seq * p.headDim());
        }
    }

    private static AttentionOutputs run(AttentionInputs in, NsaSelection sel, boolean backward) {
        AttentionProblem p = in.problem();
        NsaReference.check(p, sel);
        int d = p.headDim();
        int seq = p.seqQ();
        int heads = p.heads();
        int group = heads / p.kvHeads();
        float scale = (float) p.scale();
        float cap = (float) p.softcap();
        float[] q = FloatArrays.copyOf(in.q());
        float[] k = FloatArrays.copyOf(in.k());
        float[] v = FloatArrays.copyOf(in.v());
        float[] o = new float[q.length];
        float[] lse = new float[p.batch() * heads * seq];
        int rows = lse.length;
        IntStream.range(0, rows).parallel().forEach(row -> {
            Row r = Row.of(p, sel, row);
            long qa = (long) row * d;
            float max = Float.NEGATIVE_INFINITY;
            float sum = 0;
            float[] acc = new float[d];
            for (int s = 0; s < r.nb; s++) {
                int k0 = r.blocks[s] * sel.blockSize();
                for (int j = k0, end = k0 + sel.keysInBlock(r.t, r.blocks[s]); j < end; j++) {
                    float z = logit(q, qa, k, r.kvBase + (long) j * d, d, scale, cap);
                    if (z > max) {
                        float alpha = (float) Math.exp(max - z);
                        sum *= alpha;
                        for (int x = 0; x < d; x++) {
                            acc[x] *= alpha;
                        }
                        max = z;
                    }
                    float e = (float) Math.exp(z - max);
                    sum += e;
                    long va = r.kvBase + (long) j * d;
                    for (int x = 0; x < d; x++) {
                        acc[x] += e * v[(int) (va + x)];
                    }
                }
            }
            float inv = sum > 0 ? 1 / sum : 0;
            for (int x = 0; x < d; x++) {
                o[(int) (qa + x)] = acc[x] * inv;
            }
            lse[row] = sum > 0 ? max + (float) Math.log(sum) : Float.NEGATIVE_INFINITY;
        });
        if (!backward) {
            return AttentionOutputs.forward(o, lse);
        }
        float[] dO = FloatArrays.copyOf(in.dO());
        float[] dsum = new float[rows];
        float[] dq = new float[q.length];
        IntStream.range(0, rows).parallel().forEach(row -> {
            long qa = (long) row * d;
            float s = 0;
            for (int x = 0; x < d; x++) {
                s += dO[(int) (qa + x)] * o[(int) (qa + x)];
            }
            dsum[row] = s;
        });
        IntStream.range(0, rows).parallel().forEach(row -> {
            Row r = Row.of(p, sel, row);
            long qa = (long) row * d;
            for (int s = 0; s < r.nb; s++) {
                int k0 = r.blocks[s] * sel.blockSize();
                for (int j = k0, end = k0 + sel.keysInBlock(r.t, r.blocks[s]); j < end; j++) {
                    float ds = dScore(q, k, v, dO, qa, r.kvBase + (long) j * d, d, scale, cap, lse[row], dsum[row]);
                    long ka = r.kvBase + (long) j * d;
                    for (int x = 0; x < d; x++) {
                        dq[(int) (qa + x)] += ds * k[(int) (ka + x)];
                    }
                }
            }
            for (int x = 0; x < d; x++) {
                dq[(int) (qa + x)] *= scale;
            }
        });
        ChosenBy chosen = ChosenBy.of(sel);
        int nkv = sel.numKvBlocks();
        float[] dk = new float[k.length];
        float[] dv = new float[v.length];
        IntStream.range(0, p.batch() * p.kvHeads() * nkv).parallel().forEach(entry -> {
            int kb = entry % nkv;
            int plane = entry / nkv;
            int b = plane / p.kvHeads();
            int hkv = plane % p.kvHeads();
            long kvBase = (long) plane * seq * d;
            for (int at = chosen.start(entry); at < chosen.end(entry); at++) {
                int t = chosen.token(at);
                int keys = sel.keysInBlock(t, kb);
                for (int hg = 0; hg < group; hg++) {
                    int row = ((b * heads) + hkv * group + hg) * seq + t;
                    long qa = (long) row * d;
                    for (int j = kb * sel.blockSize(); j < kb * sel.blockSize() + keys; j++) {
                        long ka = kvBase + (long) j * d;
                        float z = logit(q, qa, k, ka, d, scale, cap);
                        float prob = (float) Math.exp(z - lse[row]);
                        float ds = dScore(q, k, v, dO, qa, ka, d, scale, cap, lse[row], dsum[row]);
                        for (int x = 0; x < d; x++) {
                            dk[(int) (ka + x)] += scale * ds * q[(int) (qa + x)];
                            dv[(int) (ka + x)] += prob * dO[(int) (qa + x)];
                        }
                    }
                }
            }
        });
        return AttentionOutputs.withGradients(o, lse, dq, dk, dv);
    }

    /** The (capped) logit of query row qa against key ka. */
    private static float logit(float[] q, long qa, float[] k, long ka, int d, float scale, float cap) {
        float dot = 0;
        for (int x = 0; x < d; x++) {
            dot += q[(int) (qa + x)] * k[(int) (ka + x)];
        }
        float z = dot * scale;
        return cap > 0 ? cap * (float) Math.tanh(z / cap) : z;
    }

    /** dS = P (dP - Dsum) (1 - tanh^2), P from the row's LSE. */
    private static float dScore(float[] q, float[] k, float[] v, float[] dO, long qa, long ka, int d, float scale,
                                float cap, float lse, float dsum) {
        float dot = 0;
        float dp = 0;
        for (int x = 0; x < d; x++) {
            dot += q[(int) (qa + x)] * k[(int) (ka + x)];
            dp += dO[(int) (qa + x)] * v[(int) (ka + x)];
        }
        float z = dot * scale;
        float deriv = 1;
        if (cap > 0) {
            float th = (float) Math.tanh(z / cap);
            z = cap * th;
            deriv = 1 - th * th;
        }
        float prob = (float) Math.exp(z - lse);
        return prob * (dp - dsum) * deriv;
    }
}
