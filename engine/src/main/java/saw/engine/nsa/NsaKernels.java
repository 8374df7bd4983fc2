package saw.engine.nsa;

import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;

/** NSA selected attention on host inputs, outputs brought back: the CPU backend and the GPU kernels. */
public interface NsaKernels extends AutoCloseable {
    /** "cpu", "gpu". */
    String name();

    /** O and LSE. */
    AttentionOutputs forward(AttentionInputs in, NsaSelection sel);

    /** O and LSE, then dQ, dK and dV from the inputs' dO. */
    AttentionOutputs forwardBackward(AttentionInputs in, NsaSelection sel);

    @Override
    void close();
}
