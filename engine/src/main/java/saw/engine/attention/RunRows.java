package saw.engine.attention;

import java.nio.FloatBuffer;

/**
 * Rows of one attention run's inputs and outputs, read where they live: on a GPU each call copies back just those
 * rows, so that a run whose tensors pass 2^31 elements can be checked a few rows at a time. Q, dO, O and dQ rows
 * are of query head {@code head}; K, V, dK and dV rows of kv head {@code head}. Each returns {@code n} rows of
 * head-dim values (LSE: {@code n} values) from token {@code from} on.
 */
public interface RunRows {
    /** The inputs and outputs of a pass, one tensor each. */
    enum Tensor { Q, K, V, DO, O, LSE, DQ, DK, DV }

    float[] rows(Tensor t, int batch, int head, int from, int n);

    /** Rows of host tensors (a CPU run, or a GPU run copied back whole). */
    static RunRows of(AttentionInputs in, AttentionOutputs out) {
        AttentionProblem p = in.problem();
        return (t, b, h, from, n) -> {
            FloatBuffer src;
            int heads = p.heads();
            int seq = p.seqQ();
            int width = p.headDim();
            switch (t) {
                case Q: src = in.q(); break;
                case DO: src = in.dO(); break;
                case O: src = out.get(AttentionOutputs.Output.O); break;
                case DQ: src = out.get(AttentionOutputs.Output.DQ); break;
                case LSE: src = out.get(AttentionOutputs.Output.LSE); width = 1; break;
                default:
                    heads = p.kvHeads();
                    seq = p.seqKv();
                    src = t == Tensor.K ? in.k() : t == Tensor.V ? in.v()
                            : out.get(t == Tensor.DK ? AttentionOutputs.Output.DK : AttentionOutputs.Output.DV);
            }
            float[] a = new float[n * width];
            long at = (((long) b * heads + h) * seq + from) * width;
            src.duplicate().position(Math.toIntExact(at)).get(a);
            return a;
        };
    }
}
