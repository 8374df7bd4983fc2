package saw.app.cli;

import java.util.List;
import picocli.CommandLine.Option;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;

/**
 * The options {@code saw verify} and {@code saw ring-run} share for a run of the kernels on seeded random inputs: the
 * K/V heads, head dim and dtype of the problem, the passes and the seed (a picocli mixin), each beside its reading.
 */
final class KernelRunOptions {
    @Option(names = "--kv-heads", description = "default: --heads")
    Integer kvHeads;

    /** --kv-heads, else {@code heads}. */
    int kvHeads(int heads) {
        return kvHeads == null ? heads : kvHeads;
    }

    @Option(names = "--head-dim", defaultValue = "128")
    int headDim;

    @Option(names = "--dtype", defaultValue = "bf16", description = "bf16 or fp16")
    String dtype;

    /**
     * The value of --dtype.
     *
     * @throws IllegalArgumentException when it is not a dtype
     */
    DType dtype() {
        return DType.parse(dtype);
    }

    @Option(names = "--pass", defaultValue = "fwd,bwd", split = ",", description = "fwd, bwd or both (bwd runs fwd first)")
    List<String> passes;

    /**
     * Whether --pass asks for the backward pass.
     *
     * @throws IllegalArgumentException when a value is not a pass
     */
    boolean backward() {
        boolean backward = false;
        for (String p : passes) {
            backward |= Pass.parse(p) == Pass.BWD;
        }
        return backward;
    }

    @Option(names = "--seed", defaultValue = "1")
    long seed;
}
