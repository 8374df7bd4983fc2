package saw.engine.cpu;

import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionKernels;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;
import saw.engine.attention.TileLists;
import saw.engine.mask.TileLayout;

/**
 * {@link ReferenceAttention} behind the backend interfaces ("cpu-reference"): exact and dense, for small sizes.
 * The layout only supplies the mask; every pair is evaluated.
 */
public final class ReferenceBackend implements AttentionBackend, AttentionKernels {
    @Override
    public String name() {
        return "cpu-reference";
    }

    @Override
    public String device() {
        return "CPU, fp64, " + Runtime.getRuntime().availableProcessors() + " threads";
    }

    @Override
    public AttentionOutputs forward(AttentionInputs in, TileLayout layout) {
        TileLists.requireMatching(in.problem(), layout);
        return ReferenceAttention.compute(in, layout.mask(), false);
    }

    @Override
    public AttentionOutputs forwardBackward(AttentionInputs in, TileLayout layout) {
        TileLists.requireMatching(in.problem(), layout);
        return ReferenceAttention.compute(in, layout.mask(), true);
    }

    /** Times the whole reference pass (the backward recomputes the forward: the reference keeps no state). */
    @Override
    public PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed) {
        TileLists.requireMatching(problem, layout);
        AttentionInputs in = AttentionInputs.random(problem, seed, pass == Pass.BWD);
        return new PreparedRun() {
            @Override
            public String kernelName() {
                return "reference_" + pass.label() + "_fp64_dense";
            }

            @Override
            public double runTimedMs() {
                long t0 = System.nanoTime();
                ReferenceAttention.compute(in, layout.mask(), pass == Pass.BWD);
                return (System.nanoTime() - t0) / 1e6;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void close() {
    }
}
