package saw.engine.gpu;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.TileLists;
import saw.engine.mask.TileLayout;

/**
 * How a layout is split over a ring: device {@code d} holds the queries of q-blocks {@code qBlocks[d]} and the
 * keys and values of kv-blocks {@code kvBlocks[d]} (its shard), each gathered into one contiguous local tensor in
 * ascending block order. At step {@code s} it attends its queries to the shard of device {@code (d - s) mod N};
 * {@code work[d][s]} says whether that step has any tile (an empty step is skipped). {@code global} is the problem of
 * the whole layout; the devices' problems differ from it only in their lengths.
 */
public record RingShards(AttentionProblem global, TileLayout layout, int[][] qBlocks, int[][] kvBlocks, boolean[][] work) {
    public RingShards {
        int n = qBlocks.length;
        if (n < 1 || kvBlocks.length != n || work.length != n) {
            throw new IllegalArgumentException("a ring of " + n + " devices needs " + n + " q-block lists, kv-block lists and "
                    + "work rows (got " + kvBlocks.length + " and " + work.length + ")");
        }
        TileLists.requireMatching(global, layout);
        qBlocks = copy(qBlocks);
        kvBlocks = copy(kvBlocks);
        boolean[][] w = new boolean[n][];
        for (int d = 0; d < n; d++) {
            if (qBlocks[d].length == 0 || kvBlocks[d].length == 0) {
                throw new IllegalArgumentException("device " + d + " holds no tokens; every ring device needs queries and keys");
            }
            if (work[d].length != n) {
                throw new IllegalArgumentException("device " + d + " has " + work[d].length + " steps; a ring of " + n
                        + " devices has " + n);
            }
            w[d] = work[d].clone();
        }
        checkPartition("q", qBlocks, layout.numQBlocks());
        checkPartition("kv", kvBlocks, layout.numKvBlocks());
        work = w;
    }

    /** The shards with {@code work} worked out from the layout: a step works when any of its tiles is not EMPTY. */
    public static RingShards of(AttentionProblem global, TileLayout layout, int[][] qBlocks, int[][] kvBlocks) {
        int n = qBlocks.length;
        int[] kvOwner = new int[layout.numKvBlocks()];
        Arrays.fill(kvOwner, -1);
        for (int d = 0; d < Math.min(n, kvBlocks.length); d++) {
            for (int b : kvBlocks[d]) {
                if (b >= 0 && b < kvOwner.length) {
                    kvOwner[b] = d;
                }
            }
        }
        boolean[][] work = new boolean[n][n];
        for (int v = 0; v < layout.variantCount(); v++) {
            saw.engine.mask.TileGrid grid = layout.grid(v);
            for (int d = 0; d < n; d++) {
                for (int r : qBlocks[d]) {
                    if (r < 0 || r >= layout.numQBlocks()) {
                        continue; // the constructor says what is wrong
                    }
                    for (int run = 0; run < grid.runCount(r); run++) {
                        if (grid.runClass(r, run) == saw.engine.mask.TileClass.EMPTY) {
                            continue;
                        }
                        for (int kb = grid.runStart(r, run); kb < grid.runEnd(r, run); kb++) {
                            if (kvOwner[kb] >= 0) {
                                work[d][Math.floorMod(d - kvOwner[kb], n)] = true;
                            }
                        }
                    }
                }
            }
        }
        return new RingShards(global, layout, qBlocks, kvBlocks, work);
    }

    private static int[][] copy(int[][] a) {
        int[][] out = new int[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].clone();
        }
        return out;
    }

    private static void checkPartition(String side, int[][] blocks, int count) {
        int[] owner = new int[count];
        Arrays.fill(owner, -1);
        for (int d = 0; d < blocks.length; d++) {
            for (int b : blocks[d]) {
                if (b < 0 || b >= count || owner[b] >= 0) {
                    throw new IllegalArgumentException(side + "-block " + b + " of device " + d + " is out of range 0.."
                            + (count - 1) + " or held twice");
                }
                owner[b] = d;
            }
        }
        for (int b = 0; b < count; b++) {
            if (owner[b] < 0) {
                throw new IllegalArgumentException(side + "-block " + b + " is held by no device");
            }
        }
    }

    public int devices() {
        return qBlocks.length;
    }

    @Override
    public int[][] qBlocks() {
        return copy(qBlocks);
    }

    @Override
    public int[][] kvBlocks() {
        return copy(kvBlocks);
    }

    @Override
    public boolean[][] work() {
        boolean[][] out = new boolean[work.length][];
        for (int d = 0; d < work.length; d++) {
            out[d] = work[d].clone();
        }
        return out;
    }

    /** Whether device d has any tile at step s. */
    public boolean works(int d, int s) {
        return work[d][s];
    }

    /** Query tokens device {@code d} holds. */
    public int qTokens(int d) {
        return tokens(qBlocks[d], layout.blockQ(), global.seqQ());
    }

    /** Key/value tokens of device {@code d}'s shard. */
    public int kvTokens(int d) {
        return tokens(kvBlocks[d], layout.blockKv(), global.seqKv());
    }

    private static int tokens(int[] blocks, int block, int seq) {
        long n = 0;
        for (int b : blocks) {
            n += Math.min(seq, (long) (b + 1) * block) - (long) b * block;
        }
        return (int) n;
    }

    /** The problem of device {@code d}'s queries against the shard of {@code owner}. */
    public AttentionProblem problem(int d, int owner) {
        AttentionProblem g = global;
        return new AttentionProblem(g.batch(), g.heads(), g.kvHeads(), qTokens(d), kvTokens(owner), g.headDim(), g.dtype(),
                g.scale(), g.softcap());
    }

    /** Device {@code d}'s own tensors: its queries and its shard. */
    public AttentionProblem local(int d) {
        return problem(d, d);
    }

    /** The kernel tables of device {@code d}'s step {@code s}, in its local token order. */
    public TileLists lists(int d, int s) {
        int owner = Math.floorMod(d - s, devices());
        return TileLists.gathered(problem(d, owner), layout, qBlocks[d], kvBlocks[owner]);
    }

    /** Each device's inputs: its query rows (and dO rows) and its shard's K and V rows, taken from the whole inputs. */
    public List<AttentionInputs> gather(AttentionInputs whole) {
        if (!whole.problem().equals(global)) {
            throw new IllegalArgumentException("the inputs are for " + whole.problem() + ", the ring for " + global);
        }
        if (whole.hasSinks()) {
            throw new IllegalArgumentException("the multi-GPU ring does not take learned sink logits yet; run it without sinks");
        }
        List<AttentionInputs> out = new ArrayList<>();
        for (int d = 0; d < devices(); d++) {
            AttentionProblem p = local(d);
            float[] q = rows(whole.q(), global.heads(), global.seqQ(), qBlocks[d], layout.blockQ(), p.seqQ());
            float[] k = rows(whole.k(), global.kvHeads(), global.seqKv(), kvBlocks[d], layout.blockKv(), p.seqKv());
            float[] v = rows(whole.v(), global.kvHeads(), global.seqKv(), kvBlocks[d], layout.blockKv(), p.seqKv());
            float[] dO = whole.hasGradient()
                    ? rows(whole.dO(), global.heads(), global.seqQ(), qBlocks[d], layout.blockQ(), p.seqQ()) : null;
            out.add(AttentionInputs.of(p, q, k, v, dO));
        }
        return out;
    }

    /** The devices' outputs put back in the whole sequence's order. */
    public AttentionOutputs scatter(List<AttentionOutputs> perDevice) {
        if (perDevice.size() != devices()) {
            throw new IllegalArgumentException(perDevice.size() + " outputs for a ring of " + devices() + " devices");
        }
        int dh = global.headDim();
        float[] o = new float[(int) AttentionInputs.qSize(global)];
        float[] lse = new float[global.batch() * global.heads() * global.seqQ()];
        boolean grads = perDevice.get(0).hasGradients();
        float[] dq = grads ? new float[o.length] : null;
        float[] dk = grads ? new float[(int) AttentionInputs.kvSize(global)] : null;
        float[] dv = grads ? new float[dk.length] : null;
        for (int d = 0; d < devices(); d++) {
            AttentionOutputs a = perDevice.get(d);
            int lq = qTokens(d);
            int lkv = kvTokens(d);
            put(a.get(AttentionOutputs.Output.O), o, global.heads(), global.seqQ(), qBlocks[d], layout.blockQ(), lq, dh);
            put(a.get(AttentionOutputs.Output.LSE), lse, global.heads(), global.seqQ(), qBlocks[d], layout.blockQ(), lq, 1);
            if (grads) {
                put(a.get(AttentionOutputs.Output.DQ), dq, global.heads(), global.seqQ(), qBlocks[d], layout.blockQ(), lq, dh);
                put(a.get(AttentionOutputs.Output.DK), dk, global.kvHeads(), global.seqKv(), kvBlocks[d], layout.blockKv(), lkv,
                        dh);
                put(a.get(AttentionOutputs.Output.DV), dv, global.kvHeads(), global.seqKv(), kvBlocks[d], layout.blockKv(), lkv,
                        dh);
            }
        }
        return grads ? AttentionOutputs.withGradients(o, lse, dq, dk, dv) : AttentionOutputs.forward(o, lse);
    }

    /** Rows of [batch, heads, seq, D] tensor for the given blocks, as [batch, heads, localSeq, D]. */
    private float[] rows(java.nio.FloatBuffer src, int heads, int seq, int[] blocks, int block, int localSeq) {
        int dh = global.headDim();
        float[] out = new float[global.batch() * heads * localSeq * dh];
        forEachStretch(heads, seq, blocks, block, localSeq,
                (wholeRow, localRow, n) -> src.get(wholeRow * dh, out, localRow * dh, n * dh));
        return out;
    }

    /** The inverse of {@link #rows}: local rows of width {@code width} into the whole tensor. */
    private void put(java.nio.FloatBuffer local, float[] dst, int heads, int seq, int[] blocks, int block, int localSeq, int width) {
        forEachStretch(heads, seq, blocks, block, localSeq,
                (wholeRow, localRow, n) -> local.get(localRow * width, dst, wholeRow * width, n * width));
    }

    /** A run of consecutive token rows: where it starts in the whole tensor and in the local one, and its length. */
    private interface Stretch {
        void copy(int wholeRow, int localRow, int n);
    }

    /**
     * Each block's tokens of every (batch, head), in order: the whole tensor's rows of the blocks, packed one after
     * the other into the local tensor's {@code localSeq} rows per (batch, head).
     */
    private void forEachStretch(int heads, int seq, int[] blocks, int block, int localSeq, Stretch stretch) {
        int bh = global.batch() * heads;
        for (int i = 0; i < bh; i++) {
            int at = 0;
            for (int b : blocks) {
                int t0 = b * block;
                int t1 = Math.min(seq, t0 + block);
                stretch.copy(i * seq + t0, i * localSeq + at, t1 - t0);
                at += t1 - t0;
            }
        }
    }
}
