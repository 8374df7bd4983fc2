package saw.engine.gpu;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.Pass;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.guard.TooLarge;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * Provokes each GPU fault on a real GPU, in one process, and then checks that a normal verification and a timed run
 * still work: a run larger than the free memory (refused by the size guard), an allocation larger than the card
 * (refused by the driver), a kernel missing from the fatbin, a launch the driver refuses, and a kernel that writes to
 * address 0 and loses the context. Prints a table; exits 0 when every step did what it should. bench/gpu-faults.sh
 * runs it; GpuFaultsTest runs it on a fake driver.
 */
public final class FaultDrill {
    /** One step: what was attempted, what should happen, whether it did, and the message saw gave. */
    record Step(String attempted, String expected, boolean ok, long millis, String message) {}

    private final GpuBackend gpu;
    private final CudaDevice cuda;
    private final List<Step> steps = new ArrayList<>();

    FaultDrill(GpuBackend gpu) {
        this.gpu = gpu;
        this.cuda = gpu.cuda();
    }

    /** The grid of the drill's write to address 0; odd, so a fake driver can tell that launch from the others. */
    static final int ILLEGAL_WRITE_GRID = 2047;

    public static void main(String[] args) {
        GpuStatus status = GpuBackend.detect();
        if (!status.usable()) {
            System.out.println("saw GPU fault drill: " + status.message());
            System.exit(2);
        }
        boolean ok;
        try (GpuBackend gpu = GpuBackend.open()) {
            ok = new FaultDrill(gpu).run(System.out);
        }
        System.exit(ok ? 0 : 1);
    }

    /** Runs every step and prints the table; true when each did what it should. */
    boolean run(PrintStream out) {
        long[] before = cuda.driver.memory();
        out.printf(Locale.ROOT, "saw GPU fault drill on %s: %.1f of %.1f GiB free%n", gpu.device(), gib(before[0]), gib(before[1]));
        long total = before[1];
        AttentionProblem big = AttentionProblem.of(1, 64, 64, 32_768, 32_768, 128, DType.BF16); // about 5 GiB for bwd
        step("a bwd run of about 5 GiB with all but 4 GiB of the card taken", "refused by the size guard", () -> {
            try (DeviceBuffer ballast = cuda.buffer("ballast", cuda.freeBytes() - (4L << 30));
                 AttentionBackend.PreparedRun run = gpu.prepare(big, causal(big, 128, 64), Pass.BWD, 1)) {
                return fail("it was prepared with " + ballast.bytes + " bytes taken");
            } catch (TooLarge e) {
                return pass(e.getMessage());
            }
        });
        step(String.format(Locale.ROOT, "allocating %.1f GiB, more than the card", gib(total + (1L << 30))), "CUDA_ERROR_OUT_OF_MEMORY", () ->
                expectGpu(() -> cuda.buffer("the drill", total + (1L << 30)), "CUDA_ERROR_OUT_OF_MEMORY"));
        step("launching fwd_bf16_d96_q128_kv64, which the fatbin lacks", "CUDA_ERROR_NOT_FOUND", () ->
                expectGpu(() -> launch(new LaunchShape("fwd_bf16_d96_q128_kv64", 1, 128, 0), 0L), "CUDA_ERROR_NOT_FOUND"));
        step("launching fill_normal_bf16 with 2048 threads a block", "the driver refuses the launch", () ->
                expectGpu(() -> launch(new LaunchShape("fill_normal_bf16", 1, 2048, 0), 0L, 1L << 20, 1L), "CUDA_ERROR_INVALID_VALUE"));
        step("verifying causal B=1 H=4 S=2048 D=128 bf16 fwd+bwd against fp64", "PASS", this::verify);
        step("a timed bwd run of the same", "runs", () -> {
            AttentionProblem p = small();
            try (AttentionBackend.PreparedRun run = gpu.prepare(p, causal(p, 128, 64), Pass.BWD, 3)) {
                double ms = run.runTimedMs();
                return pass(String.format(Locale.ROOT, "%s ran in %.3f ms", run.kernelName(), ms));
            }
        });
        step("fill_normal_bf16 writing 2^20 values to address 0", "the context is lost", () ->
                expectGpu(() -> launch(new LaunchShape("fill_normal_bf16", ILLEGAL_WRITE_GRID, 256, 0), 0L, 1L << 20, 1L), "context was lost"));
        step("a verification after the lost context", "runs, or a clear restart message", () -> {
            try {
                return verify();
            } catch (GpuException e) {
                return e.getMessage().contains("restart saw") ? pass(e.getMessage()) : fail(e.getMessage());
            }
        });
        boolean ok = steps.stream().allMatch(Step::ok);
        print(out);
        try {
            cuda.makeCurrent();
            out.printf(Locale.ROOT, "free GPU memory before %.2f GiB, after %.2f GiB; context resets %d%n", gib(before[0]),
                    gib(cuda.freeBytes()), cuda.generation());
        } catch (GpuException e) {
            out.println("after the last step the GPU needs a restart of saw: " + e.getMessage());
        }
        out.println(ok ? "DRILL PASSED" : "DRILL FAILED");
        return ok;
    }

    private Step verify() {
        AttentionProblem p = small();
        BoundMask mask = BoundMask.bind(new Mask.Causal(0), dims(p));
        AttentionInputs in = AttentionInputs.random(p, 7, true);
        AttentionOutputs got = gpu.forwardBackward(in, mask.compile(128, 64));
        AttentionOutputs ref = ReferenceAttention.compute(in, mask, true);
        StringBuilder errors = new StringBuilder();
        boolean ok = true;
        for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
            ok &= e.passes(p.dtype().tolerance());
            errors.append(String.format(Locale.ROOT, "%s %.1e ", e.output().label(), e.relError()));
        }
        return new Step("", "", ok, 0, (ok ? "PASS: " : "FAIL: ") + errors.toString().trim());
    }

    private void launch(LaunchShape shape, Object... args) {
        cuda.makeCurrent();
        cuda.syncEachLaunch(true);
        cuda.launch(shape, args);
    }

    private static Step expectGpu(Runnable call, String expected) {
        try {
            call.run();
            return fail("it succeeded");
        } catch (GpuException e) {
            return e.getMessage().contains(expected) ? pass(e.getMessage()) : fail(e.getMessage());
        }
    }

    private void step(String attempted, String expected, Supplier<Step> body) {
        long start = System.nanoTime();
        Step s;
        try {
            s = body.get();
        } catch (RuntimeException e) {
            s = fail(e.toString() + (e.getCause() != null ? " (cause: " + e.getCause() + ")" : ""));
        }
        Step done = new Step(attempted, expected, s.ok(), (System.nanoTime() - start) / 1_000_000, s.message());
        steps.add(done);
        System.err.printf(Locale.ROOT, "step %d %s: %s%n", steps.size(), done.ok() ? "ok" : "WRONG", done.message());
    }

    private static Step pass(String message) {
        return new Step("", "", true, 0, message);
    }

    private static Step fail(String message) {
        return new Step("", "", false, 0, message);
    }

    private void print(PrintStream out) {
        out.printf("%-4s %-58s %-32s %-6s %7s  %s%n", "step", "attempted", "expected", "result", "ms", "message");
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            out.printf(Locale.ROOT, "%-4d %-58s %-32s %-6s %7d  %s%n", i + 1, s.attempted(), s.expected(), s.ok() ? "ok" : "WRONG",
                    s.millis(), s.message());
        }
    }

    List<Step> steps() {
        return steps;
    }

    private static AttentionProblem small() {
        return AttentionProblem.of(1, 4, 4, 2048, 2048, 128, DType.BF16);
    }

    private static Dims dims(AttentionProblem p) {
        return new Dims(p.seqQ(), p.seqKv(), p.batch(), p.heads());
    }

    private static TileLayout causal(AttentionProblem p, int bq, int bkv) {
        return BoundMask.bind(new Mask.Causal(0), dims(p)).compile(bq, bkv);
    }

    private static double gib(long bytes) {
        return bytes / (double) (1L << 30);
    }
}
