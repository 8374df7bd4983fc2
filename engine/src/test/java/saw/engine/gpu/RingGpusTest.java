package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

/**
 * The ring on GPUs (virtual devices on GPU 0, and one device per GPU where there are several) against the single-GPU
 * kernel on the whole mask. Runs only where a usable GPU is; the GPU machine runs bench/gpu/ring-nccl.sh.
 */
class RingGpusTest {
    @BeforeEach
    void needsAGpu() {
        GpuStatus s = GpuBackend.detect();
        Assumptions.assumeTrue(s.usable(), "no usable GPU here: " + s.message());
    }

    @Test
    void mergedRingOutputsEqualTheSingleGpuKernelOnRandomMasksAndSplits() {
        long master = Long.getLong("saw.test.seed", 0x216L);
        int gpus = GpuBackend.detect().devices().size();
        try (GpuBackend single = GpuBackend.open()) {
            for (int c = 0; c < 12; c++) {
                long seed = master * 1_000_003L + c;
                SplittableRandom rnd = new SplittableRandom(seed);
                int seq = 512 + 128 * rnd.nextInt(12) - rnd.nextInt(100);
                Dims dims = new Dims(seq, seq, 1, 4);
                Mask mask = new RandomMasks(rnd, dims).mask(1);
                if (!MaskChecks.check(mask, dims).isEmpty()) {
                    continue;
                }
                int n = 2 + rnd.nextInt(3);
                int g = gpus >= n && rnd.nextBoolean() ? n : 1;
                try {
                    checkOne(single, rnd, dims, mask, n, g);
                } catch (AssertionError | RuntimeException e) {
                    fail("case " + c + " (" + n + " devices on " + g + " GPUs) failed; replay with -Dsaw.test.seed=" + master
                            + " (case seed " + seed + "): " + e.getMessage(), e);
                }
            }
        }
    }

    private static void checkOne(GpuBackend single, SplittableRandom rnd, Dims dims, Mask mask, int n, int gpus) {
        TileLayout layout = BoundMask.bind(mask, dims).compile(128, 128);
        int blocks = layout.numQBlocks();
        int[] owner = new int[blocks];
        for (int b = 0; b < blocks; b++) {
            owner[b] = b < n ? b : rnd.nextInt(n);
        }
        int[][] held = new int[n][];
        for (int d = 0; d < n; d++) {
            final int dev = d;
            held[d] = java.util.stream.IntStream.range(0, blocks).filter(b -> owner[b] == dev).toArray();
        }
        AttentionProblem p = AttentionProblem.of(1, 4, 2, dims.seqQ(), dims.seqKv(), 128, DType.BF16);
        RingShards shards = RingShards.of(p, layout, held, held);
        AttentionInputs in = AttentionInputs.random(p, rnd.nextLong(), true);
        AttentionOutputs whole = single.forwardBackward(in, layout);
        try (RingGpus ring = RingGpus.open(n, gpus, RingGpus.Transport.AUTO)) {
            List<AttentionOutputs> parts = ring.run(shards, shards.gather(in), true);
            AttentionOutputs merged = shards.scatter(parts);
            for (OutputComparison.Error e : OutputComparison.compare(merged, whole)) {
                assertTrue(e.passes(p.dtype().tolerance()), e.output().label() + " differs by " + e.relError() + " ("
                        + ring.transport() + ")");
            }
            assertTrue(ring.time(shards, true, 1, 1, 2).stream().allMatch(r -> r.wallMs() > 0));
        }
    }
}
