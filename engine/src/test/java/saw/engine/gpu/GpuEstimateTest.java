package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;
import saw.engine.reliability.ReliabilityLog;

/** The GPU size guard's estimate is at least what GpuBackend allocates at its peak, on seeded random problems. */
class GpuEstimateTest {
    @Test
    void theEstimateCoversThePeakAllocationOfTimedAndVerificationRuns() {
        long master = Long.getLong("saw.test.seed", 0x6E57L);
        int[] tilesQ = {64, 128};
        int[] tilesKv = {32, 64, 128};
        int checked = 0;
        for (int n = 0; n < 60; n++) {
            long seed = master * 1_000_003L + n;
            SplittableRandom rnd = new SplittableRandom(seed);
            Dims dims = RandomMasks.randomDims(rnd, 700);
            Mask mask = new RandomMasks(rnd, dims).mask(2);
            if (!MaskChecks.check(mask, dims).isEmpty()) {
                continue;
            }
            int kvHeads = dims.heads() % 2 == 0 && rnd.nextBoolean() ? dims.heads() / 2 : dims.heads();
            AttentionProblem p = AttentionProblem.of(dims.batch(), dims.heads(), kvHeads, dims.seqQ(), dims.seqKv(),
                    rnd.nextBoolean() ? 64 : 128, rnd.nextBoolean() ? DType.BF16 : DType.FP16);
            TileLayout layout = BoundMask.bind(mask, dims).compile(tilesQ[rnd.nextInt(2)], tilesKv[rnd.nextInt(3)]);
            Pass pass = rnd.nextBoolean() ? Pass.FWD : Pass.BWD;
            FakeDriver driver = new FakeDriver(64L << 30);
            try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU")) {
                try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, pass, seed)) {
                    run.runTimedMs();
                }
                long flush = GpuBackend.flushBytes(p, layout, pass, 64L << 30);
                long timed = SizeGuard.gpuRun(p, layout, pass, flush, 64L << 30).bytes();
                check(driver.peak, timed, "timed " + pass + " run", seed);
                driver.peak = 0;
                AttentionInputs in = AttentionInputs.random(p, seed, pass == Pass.BWD);
                if (pass == Pass.FWD) {
                    gpu.forward(in, layout);
                } else {
                    gpu.forwardBackward(in, layout);
                }
                check(driver.peak, SizeGuard.gpuRun(p, layout, pass, 0, 64L << 30).bytes(), "verification " + pass + " run", seed);
                checked++;
            }
        }
        assertTrue(checked > 20, "only " + checked + " problems were valid");
        ReliabilityLog.write("guard-gpu-estimate", new ReliabilityLog.Row("Size guards", 202,
                "GPU estimate against what GpuBackend allocates at its peak (fake driver): seeded random masks and problems, "
                        + "timed and verification runs", 2L * checked, "the estimate was never below the peak allocation", "nothing", ""));
    }

    private static void check(long peak, long estimate, String what, long seed) {
        if (peak > estimate || peak == 0) {
            fail(what + " allocated " + peak + " bytes at its peak, estimate " + estimate + " (replay seed " + seed + ")");
        }
    }
}
