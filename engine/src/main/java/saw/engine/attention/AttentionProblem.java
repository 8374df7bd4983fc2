package saw.engine.attention;

/**
 * The shapes and options of one attention call: Q [batch, heads, seqQ, headDim], K and V [batch, kvHeads, seqKv,
 * headDim]; heads is a multiple of kvHeads (GQA/MQA). {@code softcap} 0 means off.
 */
public record AttentionProblem(int batch, int heads, int kvHeads, int seqQ, int seqKv, int headDim, DType dtype,
                               double scale, double softcap) {
    public AttentionProblem {
        if (batch < 1 || heads < 1 || kvHeads < 1 || seqQ < 1 || seqKv < 1) {
            throw new IllegalArgumentException("batch, heads, kv-heads and sequence lengths must be >= 1");
        }
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("heads (" + heads + ") must be a multiple of kv-heads (" + kvHeads + ")");
        }
        if (headDim < 1) {
            throw new IllegalArgumentException("head dim must be >= 1, got " + headDim);
        }
        if (!(scale > 0) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException("scale must be a positive finite number, got " + scale);
        }
        if (!(softcap >= 0) || Double.isInfinite(softcap)) {
            throw new IllegalArgumentException("softcap must be 0 (off) or a positive finite number, got " + softcap);
        }
    }

    /** The default scale, 1/sqrt(headDim), and no softcap. */
    public static AttentionProblem of(int batch, int heads, int kvHeads, int seqQ, int seqKv, int headDim, DType dtype) {
        return new AttentionProblem(batch, heads, kvHeads, seqQ, seqKv, headDim, dtype, 1.0 / Math.sqrt(headDim), 0);
    }

    /** Elements of Q, O, dO and dQ, as a 64-bit count (device tensors pass 2^31 elements at long context). */
    public long qElements() {
        return (long) batch * heads * seqQ * headDim;
    }

    /** Elements of K, V, dK and dV, as a 64-bit count. */
    public long kvElements() {
        return (long) batch * kvHeads * seqKv * headDim;
    }

    /** Query rows over every batch entry and head: the entries of LSE. */
    public long rows() {
        return (long) batch * heads * seqQ;
    }

    /** Useful forward FLOPs: 4 * batch * heads * headDim per attended pair (QK^T and PV). */
    public double forwardFlops(long attendedPairsPerBatchHeadSum) {
        return 4.0 * headDim * attendedPairsPerBatchHeadSum;
    }
}
