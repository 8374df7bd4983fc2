package saw.engine.ring;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuStatus;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/** The ring merged from GPU launches; runs only where a usable GPU is (bench/gpu/ring-run.sh covers the presets). */
class RingRunGpuTest {
    @BeforeEach
    void needsAGpu() {
        GpuStatus s = GpuBackend.detect();
        Assumptions.assumeTrue(s.usable(), "no usable GPU here: " + s.message());
    }

    @Test
    void mergedGpuPartsMatchTheSingleDeviceKernelAndTheFp64Reference() {
        int seq = 1536;
        Dims dims = new Dims(seq, seq, 1, 2);
        TileLayout layout = BoundMask.bind(Mask.And.of(new Mask.Causal(0), Mask.Documents.ofLengths(300, 700, 400)), dims)
                .compile(128, 64);
        AttentionProblem p = AttentionProblem.of(1, 2, 1, seq, seq, 128, DType.BF16);
        AttentionInputs in = AttentionInputs.random(p, 15, true);
        try (GpuBackend gpu = GpuBackend.open()) {
            AttentionOutputs single = gpu.forwardBackward(in, layout);
            AttentionOutputs ref = ReferenceAttention.compute(in, layout.mask(), true);
            for (RingScheme scheme : RingScheme.values()) {
                RingPlan plan = RingPlanner.plan(layout, 4, scheme, RingModel.defaults(2));
                AttentionOutputs merged = RingRun.run(gpu, plan, in, true, (d, s, k) -> { });
                for (OutputComparison.Error e : OutputComparison.compare(merged, ref)) {
                    assertTrue(e.passes(DType.BF16.tolerance()), scheme + " against fp64: " + e);
                }
                for (OutputComparison.Error e : OutputComparison.compare(merged, single)) {
                    assertTrue(e.passes(DType.BF16.tolerance()), scheme + " against one device: " + e);
                }
            }
        }
    }
}
