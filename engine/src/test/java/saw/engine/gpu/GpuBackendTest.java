package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.SampledCheck;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;

/** Runs only where a usable GPU is (skipped in CI, which has none); the device runs bench/gpu/run-matrix.sh. */
class GpuBackendTest {
    private static final int[] TILE_Q = {64, 128};
    private static final int[] TILE_KV = {32, 64, 128};

    @BeforeEach
    void needsAGpu() {
        GpuStatus s = GpuBackend.detect();
        Assumptions.assumeTrue(s.usable(), "no usable GPU here: " + s.message());
    }

    @Test
    void kernelsMatchTheFp64ReferenceOnRandomMasks() {
        long master = Long.getLong("saw.test.seed", 0x6B0L);
        try (GpuBackend gpu = GpuBackend.open()) {
            assertEquals(KernelCatalog.allNames(), gpu.kernelNames());
            for (int n = 0; n < 40; n++) {
                long seed = master * 1_000_003L + n;
                try {
                    checkOne(gpu, seed);
                } catch (AssertionError | RuntimeException e) {
                    fail("case " + n + " failed; replay with seed " + seed + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private static void checkOne(GpuBackend gpu, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Dims dims = RandomMasks.randomDims(rnd, 400);
        Mask mask = new RandomMasks(rnd, dims).mask(2);
        if (!MaskChecks.check(mask, dims).isEmpty()) {
            return;
        }
        DType type = rnd.nextBoolean() ? DType.BF16 : DType.FP16;
        int d = rnd.nextBoolean() ? 64 : 128;
        AttentionProblem p = new AttentionProblem(dims.batch(), dims.heads(), dims.heads(), dims.seqQ(), dims.seqKv(), d, type,
                1.0 / Math.sqrt(d), rnd.nextBoolean() ? 20 : 0);
        BoundMask bound = BoundMask.bind(mask, dims);
        AttentionInputs in = AttentionInputs.random(p, seed, true);
        AttentionOutputs got = gpu.forwardBackward(in, bound.compile(TILE_Q[rnd.nextInt(2)], TILE_KV[rnd.nextInt(3)]));
        AttentionOutputs ref = ReferenceAttention.compute(in, bound, true);
        for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
            assertTrue(e.passes(type.tolerance()), e + " for " + mask + " " + p);
        }
    }

    @Test
    void sampledChecksOfDeviceDrawnInputsPass() {
        try (GpuBackend gpu = GpuBackend.open()) {
            for (Mask mask : new Mask[] {new Mask.SlidingWindow(1024, 0), new Mask.ChunkedCausal(2048)}) {
                int seq = 16384;
                AttentionProblem p = AttentionProblem.of(1, 8, 2, seq, seq, 128, DType.BF16);
                BoundMask bound = BoundMask.bind(mask, new Dims(seq, seq, 1, 8));
                SampledCheck.Result r = gpu.checkSampled(p, bound.compile(128, 128), true, 11, 6);
                for (OutputComparison.Error e : r.errors()) {
                    assertTrue(e.compared() > 0 && e.passes(DType.BF16.tolerance()), e + " for " + mask);
                }
            }
        }
    }
}
