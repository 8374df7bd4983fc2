package saw.engine.attention;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * Checks a run too large to copy back against the fp64 reference on a seeded sample of rows: per query head, some
 * query rows (the first, the last and random ones) for O, LSE and dQ; per kv head, some random kv rows for dK and
 * dV. The reference of a query row walks only the kv tiles its row of the layout lists and reads K and V a chunk
 * at a time. The reference of a kv row sums over every query row that attends it, taking those rows' LSE and
 * Dsum = rowsum(dO * O) from the run (sampled query rows check them independently); kv rows attended by more than
 * {@link #MAX_KV_CONTRIBUTORS} query rows are too costly and another is drawn.
 */
public final class SampledCheck {
    /** The most query rows (over the heads sharing a kv head) a checked kv row may have attending it. */
    public static final long MAX_KV_CONTRIBUTORS = 1L << 18;
    private static final int CHUNK = 4096;
    private static final int KV_DRAWS = 16;

    /** A query row of (batch, head), or a kv row of (batch, kv head). */
    public record Row(int batch, int head, int token) {
        @Override
        public String toString() {
            return "b" + batch + " h" + head + " row " + token;
        }
    }

    /**
     * What was checked and how it compared: one error per output (gradients after a backward pass), the query rows
     * and kv rows checked, and how many kv rows were passed over as too costly.
     */
    public record Result(List<OutputComparison.Error> errors, List<Row> queryRows, List<Row> kvRows, int kvRowsPassedOver) {
        public Result {
            errors = List.copyOf(errors);
            queryRows = List.copyOf(queryRows);
            kvRows = List.copyOf(kvRows);
        }
    }

    private final AttentionProblem p;
    private final TileLayout layout;
    private final BoundMask mask;
    private final RunRows run;

    private SampledCheck(AttentionProblem p, TileLayout layout, RunRows run) {
        this.p = p;
        this.layout = layout;
        this.mask = layout.mask();
        this.run = run;
    }

    /**
     * Compares {@code run}'s rows with the fp64 reference on {@code rowsPerHead} query rows per query head and as many
     * kv rows per kv head (after a backward pass), drawn from {@code seed}.
     */
    public static Result check(AttentionProblem p, TileLayout layout, boolean backward, RunRows run, int rowsPerHead, long seed) {
        if (rowsPerHead < 1) {
            throw new IllegalArgumentException("--rows must be >= 1, got " + rowsPerHead);
        }
        return new SampledCheck(p, layout, run).check(backward, rowsPerHead, seed);
    }

    /** The query rows checked of each query head: the first, the last, then distinct random ones, in order. */
    public static List<Row> queryRows(AttentionProblem p, int rowsPerHead, long seed) {
        return spread(p.batch(), p.heads(), p.seqQ(), rowsPerHead, seed);
    }

    /** Rows of each kv head drawn the same way (for a sampled dump; the check itself draws kv rows by their cost). */
    public static List<Row> kvRows(AttentionProblem p, int rowsPerHead, long seed) {
        return spread(p.batch(), p.kvHeads(), p.seqKv(), rowsPerHead, seed ^ 0x5DEECE66DL);
    }

    private static List<Row> spread(int batch, int heads, int seq, int rowsPerHead, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Row> rows = new ArrayList<>();
        int n = Math.min(rowsPerHead, seq);
        for (int b = 0; b < batch; b++) {
            for (int h = 0; h < heads; h++) {
                TreeSet<Integer> picked = new TreeSet<>();
                picked.add(0);
                if (n > 1) {
                    picked.add(seq - 1);
                }
                while (picked.size() < n) {
                    picked.add(rnd.nextInt(seq));
                }
                for (int i : picked) {
                    rows.add(new Row(b, h, i));
                }
            }
        }
        return rows;
    }

    private Result check(boolean backward, int rowsPerHead, long seed) {
        int d = p.headDim();
        List<Row> qRows = queryRows(p, rowsPerHead, seed);
        int nq = qRows.size();
        float[][] got = new float[backward ? 5 : 2][];
        float[][] ref = new float[backward ? 5 : 2][];
        got[0] = new float[nq * d];
        ref[0] = new float[nq * d];
        got[1] = new float[nq];
        ref[1] = new float[nq];
        if (backward) {
            got[2] = new float[nq * d];
            ref[2] = new float[nq * d];
        }
        for (int r = 0; r < nq; r++) {
            Row row = qRows.get(r);
            QueryReference q = queryRow(row, backward);
            System.arraycopy(run.rows(RunRows.Tensor.O, row.batch(), row.head(), row.token(), 1), 0, got[0], r * d, d);
            got[1][r] = run.rows(RunRows.Tensor.LSE, row.batch(), row.head(), row.token(), 1)[0];
            for (int x = 0; x < d; x++) {
                ref[0][r * d + x] = (float) q.o[x];
            }
            ref[1][r] = (float) q.lse;
            if (backward) {
                System.arraycopy(run.rows(RunRows.Tensor.DQ, row.batch(), row.head(), row.token(), 1), 0, got[2], r * d, d);
                for (int x = 0; x < d; x++) {
                    ref[2][r * d + x] = (float) q.dq[x];
                }
            }
        }
        List<Row> kvRows = new ArrayList<>();
        int passedOver = 0;
        if (backward) {
            SplittableRandom rnd = new SplittableRandom(seed ^ 0x5DEECE66DL);
            List<double[][]> kvRefs = new ArrayList<>();
            for (int b = 0; b < p.batch(); b++) {
                for (int hkv = 0; hkv < p.kvHeads(); hkv++) {
                    TreeSet<Integer> picked = new TreeSet<>();
                    int wanted = Math.min(rowsPerHead, p.seqKv());
                    for (int draw = 0; picked.size() < wanted && draw < wanted * KV_DRAWS; draw++) {
                        int j = rnd.nextInt(p.seqKv());
                        if (picked.contains(j)) {
                            continue;
                        }
                        if (contributors(b, hkv, j) > MAX_KV_CONTRIBUTORS) {
                            passedOver++;
                            continue;
                        }
                        picked.add(j);
                    }
                    for (int j : picked) {
                        Row row = new Row(b, hkv, j);
                        kvRows.add(row);
                        kvRefs.add(kvRow(row));
                    }
                }
            }
            int nk = kvRows.size();
            got[3] = new float[nk * d];
            got[4] = new float[nk * d];
            ref[3] = new float[nk * d];
            ref[4] = new float[nk * d];
            for (int r = 0; r < nk; r++) {
                Row row = kvRows.get(r);
                System.arraycopy(run.rows(RunRows.Tensor.DK, row.batch(), row.head(), row.token(), 1), 0, got[3], r * d, d);
                System.arraycopy(run.rows(RunRows.Tensor.DV, row.batch(), row.head(), row.token(), 1), 0, got[4], r * d, d);
                for (int x = 0; x < d; x++) {
                    ref[3][r * d + x] = (float) kvRefs.get(r)[0][x];
                    ref[4][r * d + x] = (float) kvRefs.get(r)[1][x];
                }
            }
        }
        AttentionOutputs g = backward ? AttentionOutputs.withGradients(got[0], got[1], got[2], got[3], got[4])
                : AttentionOutputs.forward(got[0], got[1]);
        AttentionOutputs f = backward ? AttentionOutputs.withGradients(ref[0], ref[1], ref[2], ref[3], ref[4])
                : AttentionOutputs.forward(ref[0], ref[1]);
        return new Result(OutputComparison.compare(g, f), qRows, kvRows, passedOver);
    }

    private int group() {
        return p.heads() / p.kvHeads();
    }

    private long contributors(int b, int hkv, int j) {
        long n = 0;
        for (int hg = 0; hg < group(); hg++) {
            n += mask.countAttending(mask.variantOf(b, hkv * group() + hg), 0, p.seqQ(), j, j + 1);
        }
        return n;
    }

    /** The fp64 reference of one query row: O, LSE and (after a backward pass) dQ. */
    private static final class QueryReference {
        double[] o;
        double lse;
        double[] dq;
    }

    private QueryReference queryRow(Row row, boolean backward) {
        int d = p.headDim();
        int b = row.batch();
        int h = row.head();
        int i = row.token();
        int hkv = h / group();
        int variant = mask.variantOf(b, h);
        double[] qi = toDouble(run.rows(RunRows.Tensor.Q, b, h, i, 1));
        double[] gi = backward ? toDouble(run.rows(RunRows.Tensor.DO, b, h, i, 1)) : null;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double sumDp = 0;
        double[] o = new double[d];
        double[] a = new double[d];
        double[] bb = new double[d];
        TileGrid grid = layout.grid(variant);
        int qb = i / layout.blockQ();
        for (int run1 = 0; run1 < grid.runCount(qb); run1++) {
            if (grid.runClass(qb, run1) == TileClass.EMPTY) {
                continue;
            }
            int from = layout.kvStart(grid.runStart(qb, run1));
            int to = layout.kvEnd(grid.runEnd(qb, run1) - 1);
            for (int c0 = from; c0 < to; c0 += CHUNK) {
                int n = Math.min(CHUNK, to - c0);
                float[] k = run.rows(RunRows.Tensor.K, b, hkv, c0, n);
                float[] v = run.rows(RunRows.Tensor.V, b, hkv, c0, n);
                for (int c = 0; c < n; c++) {
                    int j = c0 + c;
                    if (!mask.attends(variant, i, j)) {
                        continue;
                    }
                    double s = 0;
                    for (int x = 0; x < d; x++) {
                        s += qi[x] * k[c * d + x];
                    }
                    double[] capped = capped(s * p.scale());
                    s = capped[0];
                    if (s > max) {
                        double f = Math.exp(max - s);
                        sum *= f;
                        sumDp *= f;
                        for (int x = 0; x < d; x++) {
                            o[x] *= f;
                            a[x] *= f;
                            bb[x] *= f;
                        }
                        max = s;
                    }
                    double e = Math.exp(s - max);
                    sum += e;
                    double dp = 0;
                    if (backward) {
                        for (int x = 0; x < d; x++) {
                            dp += gi[x] * v[c * d + x];
                        }
                        sumDp += e * dp;
                    }
                    for (int x = 0; x < d; x++) {
                        o[x] += e * v[c * d + x];
                        if (backward) {
                            a[x] += e * dp * capped[1] * k[c * d + x];
                            bb[x] += e * capped[1] * k[c * d + x];
                        }
                    }
                }
            }
        }
        QueryReference r = new QueryReference();
        r.o = new double[d];
        r.dq = backward ? new double[d] : null;
        if (sum == 0) {
            r.lse = Double.NEGATIVE_INFINITY;
            return r;
        }
        r.lse = max + Math.log(sum);
        double rowD = sumDp / sum;
        for (int x = 0; x < d; x++) {
            r.o[x] = o[x] / sum;
            if (backward) {
                r.dq[x] = p.scale() * (a[x] / sum - rowD * bb[x] / sum);
            }
        }
        return r;
    }

    /** dK and dV of one kv row, over every query row of the kv head's query heads that attends it. */
    private double[][] kvRow(Row row) {
        int d = p.headDim();
        int b = row.batch();
        int hkv = row.head();
        int j = row.token();
        double[] kj = toDouble(run.rows(RunRows.Tensor.K, b, hkv, j, 1));
        double[] vj = toDouble(run.rows(RunRows.Tensor.V, b, hkv, j, 1));
        double[] dk = new double[d];
        double[] dv = new double[d];
        int kb = j / layout.blockKv();
        for (int hg = 0; hg < group(); hg++) {
            int h = hkv * group() + hg;
            int variant = mask.variantOf(b, h);
            TileGrid grid = layout.grid(variant);
            for (int qb = 0; qb < layout.numQBlocks(); qb++) {
                if (grid.classAt(qb, kb) == TileClass.EMPTY) {
                    continue;
                }
                int q0 = layout.qStart(qb);
                int n = layout.qEnd(qb) - q0;
                float[] q = null;
                float[] g = null;
                float[] o = null;
                float[] lse = null;
                for (int r = 0; r < n; r++) {
                    int i = q0 + r;
                    if (!mask.attends(variant, i, j)) {
                        continue;
                    }
                    if (q == null) {
                        q = run.rows(RunRows.Tensor.Q, b, h, q0, n);
                        g = run.rows(RunRows.Tensor.DO, b, h, q0, n);
                        o = run.rows(RunRows.Tensor.O, b, h, q0, n);
                        lse = run.rows(RunRows.Tensor.LSE, b, h, q0, n);
                    }
                    double s = 0;
                    double dp = 0;
                    double rowD = 0;
                    for (int x = 0; x < d; x++) {
                        s += q[r * d + x] * kj[x];
                        dp += g[r * d + x] * vj[x];
                        rowD += (double) g[r * d + x] * o[r * d + x];
                    }
                    double[] capped = capped(s * p.scale());
                    double prob = Math.exp(capped[0] - lse[r]);
                    double ds = prob * (dp - rowD) * capped[1];
                    for (int x = 0; x < d; x++) {
                        dk[x] += ds * q[r * d + x];
                        dv[x] += prob * g[r * d + x];
                    }
                }
            }
        }
        for (int x = 0; x < d; x++) {
            dk[x] *= p.scale();
        }
        return new double[][] {dk, dv};
    }

    /** The logit after the softcap and its derivative by the uncapped logit. */
    private double[] capped(double s) {
        if (p.softcap() > 0) {
            double th = Math.tanh(s / p.softcap());
            return new double[] {p.softcap() * th, 1 - th * th};
        }
        return new double[] {s, 1};
    }

    private static double[] toDouble(float[] a) {
        double[] out = new double[a.length];
        for (int x = 0; x < a.length; x++) {
            out[x] = a[x];
        }
        return out;
    }
}
