package saw.app.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.PartialAttention;
import saw.engine.attention.Pass;
import saw.engine.config.ConfigException;
import saw.engine.cpu.CpuBackend;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuException;
import saw.engine.gpu.RingGpus;
import saw.engine.mask.Dims;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.TileLayout;
import saw.engine.ring.RingModel;
import saw.engine.ring.RingPlan;
import saw.engine.ring.RingPlanner;
import saw.engine.ring.RingRun;
import saw.engine.ring.RingScheme;

/**
 * {@code saw ring-run SPEC --devices N --scheme S}: runs a ring plan on this one device, part by part, merges the
 * parts as the ring would and checks the merged outputs against the single-device kernel and the fp64 reference.
 */
@Command(name = "ring-run", mixinStandardHelpOptions = true,
        description = {"Runs every (device, step) of a ring plan as one block-sparse launch on this machine, merges the "
                + "partial outputs by their log-sum-exp (the backward sums each part's dQ, dK, dV) and prints the merged "
                + "outputs' relative errors against the single-device kernel and the fp64 reference, then the N-device "
                + "wall time and efficiency predicted from the measured launch times.",
                "Exits 3 when a merged output is above the dtype's tolerance (bf16 1e-2, fp16 2e-3) or holds NaN; 2 on "
                        + "bad input; 1 on a GPU failure."})
final class RingRunCommand implements Callable<Integer> {
    static final int MAX_REPEAT = 100;

    @Spec
    CommandSpec command;

    @Parameters(index = "0", paramLabel = "SPEC", description = "a saw.mask/1 config file, preset:NAME, or a one-line "
            + "mask such as and(causal,docs(3000,5000)) (as saw verify takes)")
    String spec;

    @Option(names = "--seq", paramLabel = "N", description = "tokens of the sequence; required for a one-line mask, else the config's")
    Integer seq;

    @Option(names = "--block", paramLabel = "QxKV", description = "tile, e.g. 128x128; default: the config's, or 128x128")
    String block;

    @Mixin
    RingOptions options;

    @Option(names = "--devices", paramLabel = "N[,N..]", split = ",", defaultValue = "2,4,8",
            description = "ring sizes to run (default: ${DEFAULT-VALUE})")
    List<Integer> devices;

    @Option(names = "--scheme", paramLabel = "S[,S..]", split = ",", defaultValue = "all",
            description = "contiguous, zigzag, striped, balanced, or all (default: ${DEFAULT-VALUE})")
    List<String> schemes;

    @Option(names = "--backend", defaultValue = "gpu", description = "gpu or cpu (default: ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--batch", description = "default: the config's")
    Integer batch;

    @Option(names = "--heads", description = "default: the config's")
    Integer heads;

    @Mixin
    KernelRunOptions kernelRun;

    @Option(names = "--repeat", defaultValue = "5",
            description = "timed launches per part after one warm-up, median taken; 0 skips timing (default: ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--steps", description = "also print each (device, step) launch's measured time")
    boolean steps;

    @Option(names = "--gpus", paramLabel = "G", description = "run each ring for real: one GPU per device (G = N) or "
            + "all N devices as virtual devices on one GPU (G = 1); K/V passed around the ring, times per GPU (RingGpuRun)")
    Integer gpus;

    @Option(names = "--transport", defaultValue = "auto", description = "with --gpus: nccl, p2p (CUDA peer copies) or auto "
            + "(NCCL when found, else peer copies; virtual devices always copy) (default: ${DEFAULT-VALUE})")
    String transport;

    @Option(names = "--out", paramLabel = "FILE", description = "with --gpus: write saw.bench/1 rows (per-GPU times, "
            + "efficiency) to FILE")
    java.nio.file.Path resultsFile;

    /** The problem, its layout and the passes asked for. */
    private record Setup(String name, AttentionProblem problem, TileLayout layout, boolean backward, RingModel model,
                         List<Planned> plans) {}

    /** One ring to run, or the line saying why it cannot be planned. */
    private record Planned(RingPlan plan, String unavailable) {}

    @Override
    public Integer call() throws ConfigException {
        Setup s = setup();
        PrintWriter out = command.commandLine().getOut();
        if (gpus != null) {
            return onGpus(s, out);
        }
        if (resultsFile != null) {
            throw new BadInput("--out writes the results of --gpus runs; add --gpus G (one part at a time on one device "
                    + "writes no results file)");
        }
        try (Kernels k = open(backend)) {
            return run(s, k, out);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        } catch (GpuException e) {
            return gpuFailed(e);
        }
    }

    /** {@code --gpus}: every plan executed on real (or virtual) devices by {@link RingGpuRun}. */
    private int onGpus(Setup s, PrintWriter out) {
        if (gpus < 1) {
            throw new BadInput("--gpus must be at least 1, got " + gpus);
        }
        if (!backend.equalsIgnoreCase("gpu")) {
            throw new BadInput("--gpus runs the rings on GPUs; it does not go with --backend " + backend);
        }
        RingGpus.Transport t;
        try {
            t = RingGpus.Transport.parse(transport);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--transport: " + e.getMessage());
        }
        List<Object> items = new ArrayList<>();
        s.plans.forEach(pl -> items.add(pl.plan != null ? pl.plan : pl.unavailable));
        String line = "ring-run " + String.join(" ", command.commandLine().getParseResult().originalArgs());
        RingGpuRun.Settings settings = new RingGpuRun.Settings(gpus, t, repeat, kernelRun.seed, resultsFile, line);
        try {
            return new RingGpuRun(s.name, s.problem, s.layout, s.backward, settings, out).run(items);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        } catch (java.io.IOException e) {
            throw new BadInput("--out " + resultsFile + ": " + e.getMessage());
        } catch (GpuException e) {
            return gpuFailed(e);
        }
    }

    /** A GPU failure: its message on stderr, exit 1. */
    private int gpuFailed(GpuException e) {
        command.commandLine().getErr().println("saw ring-run: " + e.getMessage());
        command.commandLine().getErr().flush();
        return SawCli.INTERNAL_ERROR;
    }

    private Setup setup() throws ConfigException {
        if (repeat < 0 || repeat > MAX_REPEAT) {
            throw new BadInput("--repeat must be in 0.." + MAX_REPEAT + ", got " + repeat);
        }
        MaskSpec m;
        try {
            m = MaskSpec.of(spec, seq, batch, heads, block, "128x128");
        } catch (IllegalArgumentException e) {
            throw new BadInput(spec + ": " + e.getMessage());
        }
        int sq = m.seqQ();
        int skv = m.seqKv();
        int b = m.batch();
        int h = m.heads();
        int hkv = kernelRun.kvHeads(h);
        AttentionProblem p;
        Dims dims;
        KernelTiles tiles;
        try {
            tiles = KernelTiles.parse(m.tile());
            p = AttentionProblem.of(b, h, hkv, sq, skv, kernelRun.headDim, kernelRun.dtype());
            dims = new Dims(sq, skv, b, h);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        List<MaskChecks.Problem> problems = MaskChecks.check(m.mask(), dims);
        if (!problems.isEmpty()) {
            throw new BadInput(spec + " at " + sq + " tokens, batch " + b + ", heads " + h + ": " + problems.get(0));
        }
        boolean backward;
        try {
            backward = kernelRun.backward();
        } catch (IllegalArgumentException e) {
            throw new BadInput("--pass: " + e.getMessage());
        }
        List<RingScheme> chosen = new ArrayList<>();
        for (String label : schemes) {
            if (label.equalsIgnoreCase("all")) {
                chosen.addAll(List.of(RingScheme.values()));
                continue;
            }
            try {
                chosen.add(RingScheme.parse(label));
            } catch (IllegalArgumentException e) {
                throw new BadInput("--scheme: " + e.getMessage());
            }
        }
        for (int n : devices) {
            if (n < RingPlanner.MIN_DEVICES || n > RingPlanner.MAX_DEVICES) {
                throw new BadInput("--devices must be in " + RingPlanner.MIN_DEVICES + ".." + RingPlanner.MAX_DEVICES + ", got " + n);
            }
        }
        TileLayout layout = MaskSpec.compile(spec, m.mask(), dims, tiles);
        RingModel model = options.model(p.headDim(), p.kvHeads(), 2, m.name());
        List<Planned> plans = new ArrayList<>();
        String why = null;
        boolean any = false;
        for (int n : devices) {
            for (RingScheme scheme : chosen) {
                try {
                    plans.add(new Planned(RingPlanner.plan(layout, n, scheme, model), null));
                    any = true;
                } catch (IllegalArgumentException e) {
                    why = why == null ? e.getMessage() : why;
                    plans.add(new Planned(null, String.format("%-5d %-10s n/a: %s", n, scheme.label(), e.getMessage())));
                }
            }
        }
        if (!any) {
            throw new BadInput("--devices: " + why);
        }
        return new Setup(m.name(), p, layout, backward, model, plans);
    }

    /** A backend that both times launches and returns the outputs of given inputs. */
    private record Kernels(AttentionBackend timed, PartialAttention values) implements AutoCloseable {
        @Override
        public void close() {
            timed.close();
        }
    }

    private static Kernels open(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "gpu": {
                GpuBackend gpu = GpuBackend.open();
                return new Kernels(gpu, gpu);
            }
            case "cpu": {
                CpuBackend cpu = new CpuBackend();
                return new Kernels(cpu, cpu);
            }
            default: throw new BadInput("--backend: '" + name + "' is not one of gpu, cpu");
        }
    }

    private int run(Setup s, Kernels k, PrintWriter out) {
        AttentionProblem p = s.problem;
        double tol = p.dtype().tolerance();
        out.printf(Locale.ROOT, "saw ring-run %s  backend %s (%s)  B=%d H=%d Hkv=%d S=%d D=%d %s block %dx%d seed %d%n",
                s.name, k.values().name(), k.timed().device(), p.batch(), p.heads(), p.kvHeads(), p.seqQ(), p.headDim(),
                p.dtype().label(), s.layout.blockQ(), s.layout.blockKv(), kernelRun.seed);
        AttentionInputs in = AttentionInputs.random(p, kernelRun.seed, s.backward);
        AttentionOutputs single = s.backward ? k.values().forwardBackward(in, s.layout) : k.values().forward(in, s.layout);
        int[] groups = VerifyCommand.sampledGroups(p);
        AttentionOutputs ref = ReferenceAttention.compute(in, s.layout.mask(), s.backward, groups);
        int total = p.batch() * p.kvHeads();
        out.printf("fp64 reference: %s; tolerance %.0e; errors are ||out - ref|| / ||ref||%n",
                groups.length == total ? "every head" : groups.length + " of " + total + " kv-head groups", tol);
        double singleFwd = repeat > 0 ? RingRun.medianMs(k.timed(), p, s.layout, Pass.FWD, repeat, kernelRun.seed) : Double.NaN;
        double singleBwd = repeat > 0 && s.backward ? RingRun.medianMs(k.timed(), p, s.layout, Pass.BWD, repeat, kernelRun.seed) : Double.NaN;
        RingModel model = s.model;

        List<String> outputs = new ArrayList<>();
        for (OutputComparison.Error e : OutputComparison.compare(single, ref)) {
            outputs.add(e.output().label());
        }
        StringBuilder head = new StringBuilder(String.format("%-5s %-10s %5s %4s", "N", "scheme", "parts", "skip"));
        for (String o : outputs) {
            head.append(String.format(" %9s", o + ":ref"));
        }
        head.append(String.format(" %10s %9s %7s %9s %7s  %s", "max:single", "fwd ms", "fwd eff", "bwd ms", "bwd eff", "result"));
        out.println(head);
        StringBuilder row = new StringBuilder(String.format("%-5s %-10s %5d %4d", "1", "single", 1, 0));
        for (OutputComparison.Error e : OutputComparison.compare(single, ref)) {
            row.append(String.format(Locale.ROOT, " %9.2e", e.relError()));
        }
        row.append(String.format(Locale.ROOT, " %10s %9.3f %7s %9.3f %7s  %s", "-", singleFwd, "-", singleBwd, "-", "kernel"));
        out.println(row);
        out.flush();
        boolean pass = true;
        List<String> failed = new ArrayList<>();
        List<String> stepLines = new ArrayList<>();
        for (Planned planned : s.plans) {
            if (planned.plan == null) {
                out.println(planned.unavailable);
                continue;
            }
            RingPlan plan = planned.plan;
            int n = plan.devices();
            RingScheme scheme = plan.scheme();
            AttentionOutputs merged = RingRun.run(k.values(), plan, in, s.backward, (d, st, done) -> { });
            boolean ok = true;
            row = new StringBuilder(String.format("%-5d %-10s %5d %4d", n, scheme.label(), n * n,
                    plan.predicted().skippedSteps()));
            for (OutputComparison.Error e : OutputComparison.compare(merged, ref)) {
                ok &= e.passes(tol);
                row.append(String.format(Locale.ROOT, " %9.2e", e.relError()));
            }
            double worstSingle = 0;
            for (OutputComparison.Error e : OutputComparison.compare(merged, single)) {
                ok &= e.passes(tol);
                worstSingle = Math.max(worstSingle, e.relError());
            }
            row.append(String.format(Locale.ROOT, " %10.2e", worstSingle));
            row.append(timed(k, plan, p, Pass.FWD, singleFwd, stepLines));
            row.append(s.backward ? timed(k, plan, p, Pass.BWD, singleBwd, stepLines) : String.format(" %9s %7s", "-", "-"));
            row.append("  ").append(ok ? "ok" : "FAIL");
            out.println(row);
            out.flush();
            if (!ok) {
                pass = false;
                failed.add("N=" + n + " " + scheme.label());
            }
        }
        if (steps) {
            stepLines.forEach(out::println);
        }
        out.println("eff = single-device time / (N x predicted N-device wall time); the wall time sums each step's slowest "
                + "launch (transfers at " + model.linkGBs() + " GB/s overlapped)");
        out.println(pass ? "PASS" : "FAIL: " + String.join(", ", failed));
        out.flush();
        return pass ? SawCli.OK : VerifyCommand.MISMATCH;
    }

    private String timed(Kernels k, RingPlan plan, AttentionProblem p, Pass pass, double singleMs, List<String> stepLines) {
        if (repeat == 0) {
            return String.format(" %9s %7s", "-", "-");
        }
        double[][] ms = RingRun.time(k.timed(), plan, p, pass, repeat, kernelRun.seed, (d, st, done) -> { });
        RingPlan.Prediction pr = plan.withMeasured(ms, singleMs);
        int n = plan.devices();
        for (int d = 0; d < n; d++) {
            StringBuilder line = new StringBuilder(String.format("N=%d %s %s device %d ms by step:", n, plan.scheme().label(),
                    pass.label(), d));
            for (int s = 0; s < n; s++) {
                line.append(String.format(Locale.ROOT, " %.3f", ms[d][s]));
            }
            stepLines.add(line.toString());
        }
        return String.format(Locale.ROOT, " %9.3f %6.1f%%", pr.wallMs(), 100 * pr.efficiency());
    }
}
