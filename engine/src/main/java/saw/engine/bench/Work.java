package saw.engine.bench;

import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;

/**
 * The work one timed pass stands for, by the models docs/bench-format.md defines:
 * <ul>
 *   <li>useful FLOPs: 4 * D * attended pairs (QK^T and PV, summed over batch and heads); backward 2.5x that.</li>
 *   <li>computed FLOPs: every visited tile in full, 4 * D * blockQ * blockKv per partial or full tile, ragged edge
 *       tiles included at full size; backward 2.5x that.</li>
 *   <li>bytes ({@link #BYTES_MODEL}): a FlashAttention-2-style kernel that streams tiles through on-chip memory
 *       with no reuse across tiles through caches (see {@link #bytes}).</li>
 * </ul>
 */
public record Work(double usefulFlops, double computedFlops, double bytes) {
    /** The name of the byte-count model, written in each results file so later models can be told apart. */
    public static final String BYTES_MODEL = "fa2-stream/1";
    /** Backward FLOPs over forward FLOPs: five matmuls against two (the usual FlashAttention convention). */
    public static final double BACKWARD_FACTOR = 2.5;

    public static Work of(AttentionProblem p, KernelTiles tiles, Pass pass, TileStats stats) {
        double factor = pass == Pass.FWD ? 1 : BACKWARD_FACTOR;
        double useful = factor * p.forwardFlops(stats.attendedPairs());
        double computed = factor * 4.0 * p.headDim() * tiles.blockQ() * (double) tiles.blockKv() * stats.visited();
        return new Work(useful, computed, bytes(p, tiles, pass, stats.visited()));
    }

    /**
     * Bytes moved to or from device memory, with e the element size (2 for bf16/fp16), NQ = B*H*Sq query rows,
     * NKV = B*H*Skv key rows (counted per query head: with GQA each query head reads its shared K/V), T visited tiles.
     * Forward: Q read and O written once (2 e NQ D), LSE written (4 NQ), and every visited tile loads its K and V
     * tiles (T * 2 e bkv D). Backward: the preprocess reads O and dO and writes delta (2 e NQ D + 4 NQ); the main
     * kernel reads K and V and writes dK and dV once per key row (4 e NKV D), and every visited tile loads its Q and
     * dO tiles (2 e bq D) and their LSE and delta (8 bq) and accumulates its dQ part in fp32 (4 bq D); finally the
     * fp32 dQ is read and written in the input type ((4 + e) NQ D).
     */
    static double bytes(AttentionProblem p, KernelTiles tiles, Pass pass, long visitedTiles) {
        double e = 2;
        double d = p.headDim();
        double nq = (double) p.batch() * p.heads() * p.seqQ();
        double nkv = (double) p.batch() * p.heads() * p.seqKv();
        double t = visitedTiles;
        if (pass == Pass.FWD) {
            return 2 * e * nq * d + 4 * nq + t * 2 * e * tiles.blockKv() * d;
        }
        double preprocess = 2 * e * nq * d + 4 * nq;
        double keys = 4 * e * nkv * d;
        double perTile = t * (2 * e * tiles.blockQ() * d + 8.0 * tiles.blockQ() + 4.0 * tiles.blockQ() * d);
        double dqConvert = (4 + e) * nq * d;
        return preprocess + keys + perTile + dqConvert;
    }

    /** TFLOP/s when these FLOPs take {@code ms}. */
    public static double tflops(double flops, double ms) {
        return flops / (ms * 1e-3) / 1e12;
    }

    /** GB/s (10^9 bytes per second) when these bytes move in {@code ms}. */
    public static double gbPerSecond(double bytes, double ms) {
        return bytes / (ms * 1e-3) / 1e9;
    }
}
