package saw.engine.gpu;

import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;

/**
 * A checked backward's device buffers besides dO: Dsum, the fp32 dQ accumulator, and dQ, dK, dV filled with NaN so
 * that an element the kernels never wrote shows.
 */
final class GradientBuffers extends BufferList {
    private final AttentionProblem p;
    final DeviceBuffer dsum;
    final DeviceBuffer dqAcc;
    final DeviceBuffer dq;
    final DeviceBuffer dk;
    final DeviceBuffer dv;

    GradientBuffers(CudaDevice cuda, AttentionProblem p) {
        this.p = p;
        long qn = AttentionInputs.qSize(p);
        long kvn = AttentionInputs.kvSize(p);
        long rows = (long) p.batch() * p.heads() * p.seqQ();
        try {
            dsum = add(cuda.buffer("Dsum", 4L * rows));
            dqAcc = add(cuda.buffer("dQ accumulator", 4L * qn));
            dq = add(cuda.buffer("dQ", 2L * qn));
            dk = add(cuda.buffer("dK", 2L * kvn));
            dv = add(cuda.buffer("dV", 2L * kvn));
            dq.fill16("dQ", DeviceBuffer.NAN16);
            dk.fill16("dK", DeviceBuffer.NAN16);
            dv.fill16("dV", DeviceBuffer.NAN16);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The given forward outputs with dQ, dK and dV read back and decoded. */
    AttentionOutputs read(float[] o, float[] lse) {
        int qn = (int) AttentionInputs.qSize(p);
        int kvn = (int) AttentionInputs.kvSize(p);
        return AttentionOutputs.withGradients(o, lse, dq.readHalves("dQ", p.dtype(), qn),
                dk.readHalves("dK", p.dtype(), kvn), dv.readHalves("dV", p.dtype(), kvn));
    }
}
