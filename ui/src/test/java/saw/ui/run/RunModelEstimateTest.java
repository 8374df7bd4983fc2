package saw.ui.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.Sweep;
import saw.engine.bench.SweepPoint;
import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import saw.engine.gpu.GpuBackend;
import saw.engine.guard.Estimate;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Mask;

class RunModelEstimateTest {
    /**
     * Against estimating every point of the sweep: the estimate shown is the point that needs the most heap (CPU) or
     * GPU memory (GPU), and a GPU smaller than that is refused.
     */
    @Test
    void theEstimateIsTheLargestOfEveryPointsEstimate() throws Exception {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 12; round++) {
            String where = "seed " + seed + " round " + round;
            Mask mask = rnd.nextBoolean() ? new Mask.Causal(0) : new Mask.SlidingWindow(rnd.nextInt(1, 600), 0);
            MaskConfig c = new MaskConfig("t", "", 1024, 1024, 1, 1, new BlockSize(64, 64), mask);
            List<Integer> seqs = new ArrayList<>();
            for (int i = rnd.nextInt(1, 4); i > 0; i--) {
                seqs.add(256 * rnd.nextInt(1, 13));
            }
            List<Double> densities = rnd.nextInt(3) == 0 ? List.of(0.1, 0.5) : List.of();
            List<KernelTiles> tiles = List.of(new KernelTiles(64, 64), new KernelTiles(128, 64), new KernelTiles(16 << rnd.nextInt(4), 64));
            List<Pass> passes = rnd.nextBoolean() ? List.of(Pass.FWD) : List.of(Pass.FWD, Pass.BWD);
            int kvHeads = rnd.nextInt(1, 3);
            Sweep sweep = new Sweep("t", Sweep.tree(c), List.of(), densities, seqs, tiles, passes, rnd.nextInt(1, 3),
                    kvHeads * rnd.nextInt(1, 3), kvHeads, List.of(rnd.nextBoolean() ? 64 : 128), DType.BF16, seed);
            List<SweepPoint> points = sweep.points();
            long most = 0;
            for (SweepPoint p : points) {
                var layout = BoundMask.bind(p.mask(), p.dims()).compile(p.tiles().blockQ(), p.tiles().blockKv());
                most = Math.max(most, SizeGuard.cpuRun(p.problem(), layout, p.pass()).bytes());
            }
            Estimate shown = RunModel.cpuEstimate(points);
            assertTrue(shown.fits(), where + ": " + shown.sentence());
            assertEquals(most, shown.bytes(), where + ": " + shown.sentence());
            int longest = seqs.stream().mapToInt(Integer::intValue).max().orElseThrow();
            assertTrue(shown.work().contains(" Sq=" + longest + " "), where + ": " + shown.work());

            long mostOnGpu = 0;
            for (SweepPoint p : points) {
                var layout = BoundMask.bind(p.mask(), p.dims()).compile(p.tiles().blockQ(), p.tiles().blockKv());
                mostOnGpu = Math.max(mostOnGpu, GpuBackend.timedRunOnDevice(p.problem(), layout, p.pass(), 1L << 40).bytes());
            }
            Estimate onGpu = RunModel.gpuEstimate(points, 141L << 30);
            assertTrue(onGpu.fits(), where + ": " + onGpu.sentence());
            assertEquals(mostOnGpu, onGpu.bytes(), where + ": " + onGpu.sentence());
            assertTrue(onGpu.sentence().contains("141.0 GiB is the GPU's total"), where + ": " + onGpu.sentence());
            // one byte short of the largest point's needs without its flush scratch (which a tight GPU goes without)
            Estimate small = RunModel.gpuEstimate(points, onGpu.bytes() - (256L << 20) - 1);
            assertTrue(!small.fits() && small.sentence().contains(", but "), where + ": " + small.sentence());
        }
        assertNull(RunModel.cpuEstimate(List.of()));
        assertNull(RunModel.gpuEstimate(List.of(), 1L << 30));
    }

    /** At 4M tokens x 32 heads (Q alone 2^34 elements) the run panel's GPU estimate is the device memory of the run. */
    @Test
    void theGpuEstimateHandlesTensorsPastTwoToThe31Elements() throws Exception {
        int seq = 1 << 22;
        MaskConfig c = new MaskConfig("long", "", seq, seq, 1, 32, new BlockSize(128, 128), new Mask.SlidingWindow(4096, 0));
        Sweep sweep = new Sweep("long", Sweep.tree(c), List.of(), List.of(), List.of(), List.of(new KernelTiles(128, 128)),
                List.of(Pass.FWD, Pass.BWD), 1, 32, 8, List.of(128), DType.BF16, 1);
        long start = System.nanoTime();
        Estimate e = RunModel.gpuEstimate(sweep.points(), 141L << 30);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(!e.fits() && e.work().startsWith("the GPU bwd pass on B=1 H=32 Hkv=8 Sq=4194304"), e.sentence());
        assertTrue(e.sentence().contains("needs about 225."), e.sentence());
        assertTrue(seconds < 30, "the estimate took " + seconds + " s");
    }
}
