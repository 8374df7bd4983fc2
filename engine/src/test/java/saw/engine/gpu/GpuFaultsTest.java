package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.BenchRow;
import saw.engine.bench.SweepPoint;
import saw.engine.bench.SweepRunner;
import saw.engine.guard.TooLarge;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;
import saw.engine.reliability.ReliabilityLog;

/**
 * GPU faults through a fake driver (no GPU needed): out of memory, a failed launch, a kernel that loses the context,
 * a kernel missing from the fatbin and a missing driver each end in a message naming what was attempted; nothing is
 * left allocated, and the next run on the same backend works. bench/gpu-faults.sh provokes the same on a real GPU.
 */
class GpuFaultsTest {
    private static final long GIB = 1L << 30;
    private static final String SECTION = "GPU faults (fake driver, no GPU)";

    private static AttentionProblem problem(int heads, int seq, int headDim, DType type) {
        return AttentionProblem.of(1, heads, heads, seq, seq, headDim, type);
    }

    private static TileLayout causal(AttentionProblem p, int bq, int bkv) {
        return BoundMask.bind(new Mask.Causal(0), new Dims(p.seqQ(), p.seqKv(), p.batch(), p.heads())).compile(bq, bkv);
    }

    private static GpuBackend open(FakeDriver driver) {
        return GpuBackend.open(driver, new byte[64], "fake GPU");
    }

    /** A verification run and a timed run of a small problem: both must work. */
    private static void smallRunsWork(GpuBackend gpu, FakeDriver driver) {
        AttentionProblem p = problem(2, 512, 128, DType.BF16);
        TileLayout layout = causal(p, 128, 64);
        AttentionOutputs out = gpu.forwardBackward(AttentionInputs.random(p, 1, true), layout);
        assertTrue(out.hasGradients());
        try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, Pass.BWD, 1)) {
            assertEquals("bwd_bf16_d128_q128_kv64", run.kernelName());
            assertTrue(run.runTimedMs() > 0);
        }
        assertEquals(0, driver.live.size(), "every buffer freed");
    }

    @Test
    void workLargerThanTheFreeMemoryIsRefusedBeforeAnythingIsAllocated() {
        FakeDriver driver = new FakeDriver(4 * GIB);
        try (GpuBackend gpu = open(driver)) {
            AttentionProblem huge = problem(32, 262_144, 128, DType.BF16); // Q alone is 2 GiB
            TileLayout layout = causal(huge, 128, 64);
            int before = driver.launched.size();
            List<String> messages = new ArrayList<>();
            for (Pass pass : Pass.values()) {
                TooLarge e = assertThrows(TooLarge.class, () -> gpu.prepare(huge, layout, pass, 1));
                messages.add(e.getMessage());
                assertTrue(e.getMessage().startsWith("the GPU " + pass.label() + " pass on B=1 H=32 Hkv=32 Sq=262144 Skv=262144 D=128 bf16 needs about "),
                        e.getMessage());
                assertTrue(e.getMessage().contains(" GiB of GPU memory, but only 4.0 GiB is free; use fewer heads"), e.getMessage());
            }
            assertEquals(0, driver.live.size());
            assertEquals(before, driver.launched.size(), "nothing ran");
            smallRunsWork(gpu, driver);
            row("gpu-1-oom-refused", 301, "a run larger than the free GPU memory (8 GiB of tensors on a 4 GiB card), fwd and bwd", 2,
                    "refused before allocating: \"" + messages.get(0) + "\"; the next run worked");
        }
    }

    @Test
    void anAllocationThatFailsAnywayNamesTheBufferAndTheSizes() {
        FakeDriver driver = new FakeDriver(16 * GIB);
        driver.largestAllocation = 1 << 20; // as if fragmented: no piece of 4 MiB is left
        try (GpuBackend gpu = open(driver)) {
            AttentionProblem p = problem(4, 4096, 128, DType.BF16);
            TileLayout layout = causal(p, 128, 64);
            GpuException timed = assertThrows(GpuException.class, () -> gpu.prepare(p, layout, Pass.FWD, 1));
            assertTrue(timed.getMessage().matches("allocating 4194304 bytes of GPU memory for Q failed: CUDA_ERROR_OUT_OF_MEMORY "
                    + "\\(\\d+ of 17179869184 bytes free\\)"), timed.getMessage());
            assertEquals(0, driver.live.size(), "the buffers made before the failure are freed");
            GpuException verify = assertThrows(GpuException.class, () -> gpu.forward(AttentionInputs.random(p, 1, false), layout));
            assertTrue(verify.getMessage().startsWith("allocating 4194304 bytes of GPU memory for Q failed"), verify.getMessage());
            assertEquals(0, driver.live.size());
            driver.largestAllocation = Long.MAX_VALUE;
            smallRunsWork(gpu, driver);
            row("gpu-2-oom-allocation", 302, "an allocation failing although the memory looks free (fragmentation), timed and verification runs",
                    2, "\"" + timed.getMessage() + "\"; buffers made before it freed; the next run worked");
        }
    }

    @Test
    void aFailedLaunchNamesTheKernelAndItsShape() {
        FakeDriver driver = new FakeDriver(16 * GIB);
        try (GpuBackend gpu = open(driver)) {
            AttentionProblem p = problem(2, 1024, 128, DType.BF16);
            TileLayout layout = causal(p, 128, 64);
            driver.failNextLaunch = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
            GpuException e = assertThrows(GpuException.class, () -> gpu.forward(AttentionInputs.random(p, 1, false), layout));
            assertTrue(e.getMessage().matches("launching fwd_bf16_d128_q128_kv64 <<<grid 16, block \\d+, shared \\d+ B>>> failed: "
                    + "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"), e.getMessage());
            assertEquals(0, driver.live.size());
            smallRunsWork(gpu, driver);
            assertEquals(0, driver.resets, "a failed launch does not lose the context");
            row("gpu-3-launch", 303, "a kernel launch the driver refuses (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)", 1,
                    "\"" + e.getMessage() + "\"; the next run worked without a reset");
        }
    }

    @Test
    void aKernelThatLosesTheContextIsReportedAndTheContextIsResetForTheNextRun() {
        FakeDriver driver = new FakeDriver(16 * GIB);
        try (GpuBackend gpu = open(driver)) {
            AttentionProblem p = problem(2, 1024, 128, DType.FP16);
            TileLayout layout = causal(p, 128, 64);
            AttentionBackend.PreparedRun before = gpu.prepare(problem(2, 512, 128, DType.BF16), causal(problem(2, 512, 128, DType.BF16), 128, 64), Pass.FWD, 2);
            driver.faultingKernel = "fwd_fp16_d128_q128_kv64";
            GpuException e = assertThrows(GpuException.class, () -> gpu.forward(AttentionInputs.random(p, 1, false), layout));
            assertTrue(e.getMessage().matches("kernel fwd_fp16_d128_q128_kv64 <<<grid 16, block \\d+, shared \\d+ B>>> failed: "
                    + "CUDA_ERROR_ILLEGAL_ADDRESS; the GPU context was lost \\(saw tries to reset it before the next run\\)"), e.getMessage());
            smallRunsWork(gpu, driver);
            assertEquals(1, driver.resets);
            assertEquals(2, driver.modulesLoaded, "the kernels are loaded again after the reset");
            GpuException stale = assertThrows(GpuException.class, before::runTimedMs);
            assertTrue(stale.getMessage().contains("was lost when the context was reset"), stale.getMessage());
            before.close(); // its memory went with the old context: closing must not fail
            assertEquals(0, driver.live.size());
            row("gpu-4-lost-context", 304, "a kernel that faults and loses the context (CUDA_ERROR_ILLEGAL_ADDRESS), and a run prepared before it",
                    2, "\"" + e.getMessage() + "\"; the context was reset and the kernels loaded again; the next run worked; "
                            + "the run prepared before says it must be prepared again");
        }
    }

    @Test
    void aKernelMissingFromTheFatbinIsNamed() {
        FakeDriver driver = new FakeDriver(16 * GIB);
        driver.kernels.remove("fwd_bf16_d64_q64_kv32");
        try (GpuBackend gpu = open(driver)) {
            AttentionProblem p = problem(2, 1024, 64, DType.BF16);
            TileLayout layout = causal(p, 64, 32);
            GpuException e = assertThrows(GpuException.class, () -> gpu.forward(AttentionInputs.random(p, 1, false), layout));
            assertEquals("finding kernel fwd_bf16_d64_q64_kv32 in the fatbin failed: CUDA_ERROR_NOT_FOUND", e.getMessage());
            assertEquals(0, driver.live.size());
            assertFalse(gpu.kernelNames().contains("fwd_bf16_d64_q64_kv32"));
            smallRunsWork(gpu, driver);
            row("gpu-5-missing-kernel", 305, "a kernel missing from the fatbin", 1, "\"" + e.getMessage() + "\"; the next run worked");
        }
    }

    @Test
    void aMissingDriverSaysSo() {
        FakeDriver driver = new FakeDriver(16 * GIB);
        driver.openFails = "CUDA_ERROR_NO_DEVICE";
        GpuException e = assertThrows(GpuException.class, () -> open(driver));
        assertEquals("initialising the CUDA driver failed: CUDA_ERROR_NO_DEVICE", e.getMessage());
        // and the real driver on this machine: where there is none, detection says so (and what to use instead)
        GpuStatus here = GpuBackend.detect();
        assertTrue(here.usable() || here.message().startsWith("No usable CUDA driver") || here.message().startsWith("The CUDA driver")
                || here.message().startsWith("This build of saw has no CUDA kernels"), here.message());
        ReliabilityLog.write("gpu-6-no-driver", new ReliabilityLog.Row(SECTION, 306,
                "no usable driver: a driver that fails to start, and this machine's own JCuda", 2,
                "\"" + e.getMessage() + "\"; without a driver, detection says so and names --backend cpu", "nothing",
                "here: " + (here.usable() ? "a usable GPU" : here.message())));
    }

    @Test
    void aSweepMarksEachFailedPointAndGoesOn() {
        FakeDriver driver = new FakeDriver(4 * GIB);
        driver.kernels.remove("fwd_bf16_d64_q64_kv32");
        driver.faultingKernel = "fwd_fp16_d128_q128_kv64";
        KernelTiles t128 = new KernelTiles(128, 64);
        List<SweepPoint> points = List.of(point(problem(2, 512, 128, DType.BF16), t128),
                point(problem(32, 262_144, 128, DType.BF16), t128),
                point(problem(2, 512, 64, DType.BF16), new KernelTiles(64, 32)),
                point(problem(2, 512, 128, DType.FP16), t128),
                point(problem(2, 512, 128, DType.BF16), t128));
        List<BenchRow> rows = new ArrayList<>();
        try (GpuBackend gpu = open(driver)) {
            SweepRunner.Outcome outcome = new SweepRunner(gpu, new SweepRunner.Settings(1, 3, 5)).run(points, (row, p) -> rows.add(row), () -> false);
            assertEquals(new SweepRunner.Outcome(5, 3, false), outcome);
        }
        List<String> status = rows.stream().map(BenchRow::status).toList();
        assertEquals(BenchRow.OK, status.get(0));
        assertTrue(status.get(1).startsWith("failed: the GPU fwd pass on B=1 H=32") && status.get(1).contains("GPU memory, but only"), status.get(1));
        assertEquals("failed: finding kernel fwd_bf16_d64_q64_kv32 in the fatbin failed: CUDA_ERROR_NOT_FOUND", status.get(2));
        assertTrue(status.get(3).startsWith("failed: kernel fwd_fp16_d128_q128_kv64") && status.get(3).endsWith("the GPU context was lost (saw tries to reset it before the next run)"),
                status.get(3));
        assertEquals(BenchRow.OK, status.get(4));
        assertEquals(0, driver.live.size());
        row("gpu-7-sweep", 307, "a 5-point GPU sweep meeting out of memory, a missing kernel and a lost context", 3,
                "each failed point became a row \"failed: ...\" with the message; the sweep went on and the last point ran");
    }

    @Test
    void theFaultDrillForARealGpuDoesWhatItSaysOnTheFake() {
        FakeDriver driver = new FakeDriver(141L << 30);
        driver.faultingKernel = "fill_normal_bf16"; // the fake cannot tell address 0: the drill's odd-grid fill faults
        driver.faultingGrid = FaultDrill.ILLEGAL_WRITE_GRID;
        try (GpuBackend gpu = open(driver)) {
            FaultDrill drill = new FaultDrill(gpu);
            java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
            drill.run(new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8));
            List<FaultDrill.Step> steps = drill.steps();
            assertEquals(8, steps.size(), text.toString(java.nio.charset.StandardCharsets.UTF_8));
            for (int i : new int[] {0, 1, 2, 3, 5, 6}) {
                assertTrue(steps.get(i).ok(), "step " + (i + 1) + ": " + steps.get(i));
            }
            // the fake computes nothing, so the verifications compare zeros: they must run, and fail honestly
            assertTrue(steps.get(4).message().startsWith("FAIL: O "), steps.get(4).message());
            assertTrue(steps.get(7).message().startsWith("FAIL: O "), "the fake can reset its context: " + steps.get(7).message());
            assertEquals(1, driver.resets);
        }
        assertEquals(0, driver.live.size());
    }

    private static SweepPoint point(AttentionProblem p, KernelTiles t) {
        return new SweepPoint("causal", Map.of(), Double.NaN, new Mask.Causal(0), p, t, Pass.FWD);
    }

    private static void row(String id, int order, String tried, long cases, String did) {
        ReliabilityLog.write(id, new ReliabilityLog.Row(SECTION, order, tried, cases, did.replace("|", "/"), "nothing", ""));
    }
}
