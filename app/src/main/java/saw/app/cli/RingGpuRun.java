package saw.app.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.Pass;
import saw.engine.bench.BenchEnvironment;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsWriter;
import saw.engine.bench.TileStats;
import saw.engine.bench.Timing;
import saw.engine.bench.Work;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.RingGpus;
import saw.engine.gpu.RingShards;
import saw.engine.mask.TileLayout;
import saw.engine.ring.RingPlan;

/**
 * {@code saw ring-run ... --gpus G}: every ring plan executed for real, one process, one CUDA context per GPU, K/V
 * (and dK/dV) passed around the ring by NCCL or CUDA copies ({@link RingGpus}); with {@code --gpus 1} the ring's
 * devices run as virtual devices on one GPU. Checks each merged result against the single-GPU kernel on the whole
 * mask and times both: a device's useful TFLOP/s is the whole mask's useful FLOPs / N / the ring's wall time, the
 * single-GPU rate the same FLOPs over the single kernel's time, and efficiency their ratio (single ms / (N x ring ms)).
 */
final class RingGpuRun {
    static final int WARMUP = 2;

    /** What the command line chose. */
    record Settings(int gpus, RingGpus.Transport transport, int repeat, long seed, Path results, String command) {}

    /**
     * One measured ring: errors against the single-GPU kernel, the ring's wall times per timed run (forward alone; the
     * backward ring alone and forward + backward, from runs of both) and the median time of each device.
     */
    record Measured(int devices, String scheme, double maxErrorVsSingle, boolean ok, int skipped, double[] fwdMs,
                    double[] bwdMs, double[] fwdBwdMs, double[] deviceFwdMs, double[] deviceFwdBwdMs, Busy fwdBusy,
                    Busy fwdBwdBusy) {
        double fwd() {
            return median(fwdMs);
        }

        double bwd() {
            return median(bwdMs);
        }

        double fwdBwd() {
            return median(fwdBwdMs);
        }
    }

    /** Per device, the median time in its step kernels and its communication stream's time in exchanges. */
    record Busy(double[] kernelMs, double[] commMs) {
        static Busy of(List<RingGpus.Rep> reps, int n) {
            double[] k = new double[n];
            double[] c = new double[n];
            for (int d = 0; d < n; d++) {
                final int dev = d;
                k[d] = median(reps.stream().mapToDouble(r -> r.deviceKernelMs()[dev]).toArray());
                c[d] = median(reps.stream().mapToDouble(r -> r.deviceCommMs()[dev]).toArray());
            }
            return new Busy(k, c);
        }

        static Busy none(int n) {
            return new Busy(new double[n], new double[n]);
        }
    }

    /** A timed pass of the single-GPU kernel. */
    private record Single(String kernel, double[] ms) {
        double median() {
            return RingGpuRun.median(ms);
        }
    }

    private final String name;
    private final AttentionProblem p;
    private final TileLayout layout;
    private final boolean backward;
    private final Settings s;
    private final PrintWriter out;

    RingGpuRun(String name, AttentionProblem p, TileLayout layout, boolean backward, Settings s, PrintWriter out) {
        this.name = name;
        this.p = p;
        this.layout = layout;
        this.backward = backward;
        this.s = s;
        this.out = out;
    }

    /** Runs every plan (entries that are not plans are lines saying why a ring could not be planned). */
    int run(List<Object> plans) throws IOException {
        KernelTiles tiles = new KernelTiles(layout.blockQ(), layout.blockKv());
        TileStats stats = TileStats.of(layout);
        Work fwdWork = Work.of(p, tiles, Pass.FWD, stats);
        Work bwdWork = Work.of(p, tiles, Pass.BWD, stats);
        AttentionInputs in = AttentionInputs.random(p, s.seed(), backward);
        AttentionOutputs single;
        Single singleFwd;
        Single singleBwd = null;
        BenchEnvironment env;
        try (GpuBackend gpu = GpuBackend.open(0)) {
            env = Backends.environment(gpu, s.command());
            single = backward ? gpu.forwardBackward(in, layout) : gpu.forward(in, layout);
            singleFwd = times(gpu, Pass.FWD);
            if (backward) {
                singleBwd = times(gpu, Pass.BWD);
            }
        }
        double fwdRef = singleFwd.median();
        double bwdRef = singleBwd == null ? Double.NaN : singleBwd.median();
        out.printf(Locale.ROOT, "saw ring-run %s on %s  B=%d H=%d Hkv=%d S=%d D=%d %s block %dx%d seed %d, %d timed runs%n",
                name, s.gpus() == 1 ? "1 GPU" : s.gpus() + " GPUs", p.batch(), p.heads(), p.kvHeads(), p.seqQ(), p.headDim(),
                p.dtype().label(), layout.blockQ(), layout.blockKv(), s.seed(), s.repeat());
        out.printf(Locale.ROOT, "single GPU (whole mask, one launch): fwd %.3f ms = %.1f useful TFLOP/s%s%n", fwdRef,
                Work.tflops(fwdWork.usefulFlops(), fwdRef), backward ? String.format(Locale.ROOT,
                        ", bwd %.3f ms = %.1f TFLOP/s", bwdRef, Work.tflops(bwdWork.usefulFlops(), bwdRef)) : "");
        out.flush();

        List<Measured> measured = new ArrayList<>();
        ResultsWriter results = s.results() == null ? null : ResultsWriter.create(s.results(), env);
        try {
            int index = 0;
            if (results != null) {
                results.write(row(index++, "gpu", singleFwd.kernel(), Pass.FWD, fwdWork, singleFwd.ms()),
                        Map.of("ring_devices", 1, "ring_scheme", "single"));
                if (singleBwd != null) {
                    results.write(row(index++, "gpu", singleBwd.kernel(), Pass.BWD, bwdWork, singleBwd.ms()),
                            Map.of("ring_devices", 1, "ring_scheme", "single"));
                }
            }
            RingGpus open = null;
            try {
                for (Object planned : plans) {
                    if (!(planned instanceof RingPlan plan)) {
                        out.println(planned);
                        continue;
                    }
                    int n = plan.devices();
                    if (s.gpus() != 1 && s.gpus() != n) {
                        out.printf("%-5d %-10s n/a: --gpus %d runs rings of %d devices (or of any size with --gpus 1)%n", n,
                                plan.scheme().label(), s.gpus(), s.gpus());
                        continue;
                    }
                    if (open == null || open.devices() != n) {
                        if (open != null) {
                            open.close();
                        }
                        open = RingGpus.open(n, s.gpus() == 1 ? 1 : n, s.transport());
                        out.println("ring of " + n + ": " + open.description() + "; transport: " + open.transport());
                        out.flush();
                    }
                    Measured m = measure(open, plan, in, single);
                    measured.add(m);
                    printRow(m, fwdWork, bwdWork, fwdRef, bwdRef);
                    if (results != null) {
                        index = write(results, index, open, plan, m, fwdWork, bwdWork, fwdRef, bwdRef);
                    }
                }
            } finally {
                if (open != null) {
                    open.close();
                }
            }
        } finally {
            if (results != null) {
                results.close();
            }
        }
        out.println("eff = single-GPU ms / (N x ring wall ms): 100% is N GPUs each doing 1/N of the work at the single "
                + "GPU's rate; TFLOP/s/GPU = the mask's useful FLOPs / N / ring wall time"
                + (s.gpus() == 1 ? "; virtual devices share one GPU, so their times show the schedule, not an interconnect"
                : ""));
        boolean ok = measured.stream().allMatch(Measured::ok);
        out.println(ok ? "PASS" : "FAIL: a merged output differs from the single-GPU kernel's beyond the dtype's tolerance");
        out.flush();
        return ok ? SawCli.OK : VerifyCommand.MISMATCH;
    }

    private Measured measure(RingGpus ring, RingPlan plan, AttentionInputs in, AttentionOutputs single) {
        int n = plan.devices();
        RingShards shards = RingShards.of(p, layout, blocks(plan, true), blocks(plan, false));
        AttentionOutputs merged = shards.scatter(ring.run(shards, shards.gather(in), backward));
        double worst = 0;
        boolean ok = true;
        for (OutputComparison.Error e : OutputComparison.compare(merged, single)) {
            worst = Math.max(worst, e.relError());
            ok &= e.passes(p.dtype().tolerance());
        }
        int skipped = 0;
        for (boolean[] row : shards.work()) {
            for (boolean w : row) {
                skipped += w ? 0 : 1;
            }
        }
        double[] none = new double[0];
        if (s.repeat() == 0) {
            return new Measured(n, plan.scheme().label(), worst, ok, skipped, none, none, none, new double[n], new double[n],
                    Busy.none(n), Busy.none(n));
        }
        List<RingGpus.Rep> f = ring.time(shards, false, s.seed(), WARMUP, s.repeat());
        double[] fwd = f.stream().mapToDouble(RingGpus.Rep::wallMs).toArray();
        if (!backward) {
            return new Measured(n, plan.scheme().label(), worst, ok, skipped, fwd, none, none, perDevice(f, n), new double[n],
                    Busy.of(f, n), Busy.none(n));
        }
        List<RingGpus.Rep> b = ring.time(shards, true, s.seed(), WARMUP, s.repeat());
        return new Measured(n, plan.scheme().label(), worst, ok, skipped, fwd,
                b.stream().mapToDouble(RingGpus.Rep::bwdWallMs).toArray(), b.stream().mapToDouble(RingGpus.Rep::wallMs).toArray(),
                perDevice(f, n), perDevice(b, n), Busy.of(f, n), Busy.of(b, n));
    }

    private static double[] perDevice(List<RingGpus.Rep> reps, int n) {
        double[] out = new double[n];
        for (int d = 0; d < n; d++) {
            final int dev = d;
            out[d] = median(reps.stream().mapToDouble(r -> r.deviceMs()[dev]).toArray());
        }
        return out;
    }

    private void printRow(Measured m, Work fwdWork, Work bwdWork, double fwdRef, double bwdRef) {
        int n = m.devices();
        out.printf(Locale.ROOT, "%-5d %-10s skip %3d  max err vs single %.2e  fwd %8.3f ms %6.1f TFLOP/s/GPU eff %5.1f%%",
                n, m.scheme(), m.skipped(), m.maxErrorVsSingle(), m.fwd(), Work.tflops(fwdWork.usefulFlops() / n, m.fwd()),
                100 * fwdRef / (n * m.fwd()));
        if (backward) {
            double flops = fwdWork.usefulFlops() + bwdWork.usefulFlops();
            out.printf(Locale.ROOT, "  fwd+bwd %8.3f ms %6.1f TFLOP/s/GPU eff %5.1f%%", m.fwdBwd(),
                    Work.tflops(flops / n, m.fwdBwd()), 100 * (fwdRef + bwdRef) / (n * m.fwdBwd()));
        }
        out.printf(Locale.ROOT, "  %s  per-device fwd ms %s (kernels %s, comm %s)%s%n", m.ok() ? "ok" : "FAIL",
                ms(m.deviceFwdMs()), ms(m.fwdBusy().kernelMs()), ms(m.fwdBusy().commMs()), backward ? " fwd+bwd ms "
                + ms(m.deviceFwdBwdMs()) + " (kernels " + ms(m.fwdBwdBusy().kernelMs()) + ", comm "
                + ms(m.fwdBwdBusy().commMs()) + ")" : "");
        out.flush();
    }

    private static String ms(double[] a) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < a.length; i++) {
            b.append(i == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.3f", a[i]));
        }
        return b.append(']').toString();
    }

    private int write(ResultsWriter results, int index, RingGpus ring, RingPlan plan, Measured m, Work fwdWork, Work bwdWork,
            double fwdRef, double bwdRef) throws IOException {
        if (s.repeat() == 0) {
            return index;
        }
        int n = m.devices();
        String backend = "ring-" + m.scheme();
        RingShards shards = RingShards.of(p, layout, blocks(plan, true), blocks(plan, false));
        Map<String, Object> fwd = extra(ring, m);
        fwd.put("per_gpu_useful_tflops", Work.tflops(fwdWork.usefulFlops() / n, m.fwd()));
        fwd.put("single_gpu_ms", fwdRef);
        fwd.put("efficiency", fwdRef / (n * m.fwd()));
        fwd.put("device_ms", m.deviceFwdMs());
        fwd.put("device_kernel_ms", m.fwdBusy().kernelMs());
        fwd.put("device_comm_ms", m.fwdBusy().commMs());
        results.write(row(index++, backend, ring.kernels(shards, false), Pass.FWD, fwdWork, m.fwdMs()), fwd);
        if (backward) {
            Map<String, Object> bwd = extra(ring, m);
            bwd.put("per_gpu_useful_tflops", Work.tflops(bwdWork.usefulFlops() / n, m.bwd()));
            bwd.put("single_gpu_ms", bwdRef);
            bwd.put("efficiency", bwdRef / (n * m.bwd()));
            bwd.put("fwd_bwd_ms", m.fwdBwd());
            bwd.put("fwd_bwd_efficiency", (fwdRef + bwdRef) / (n * m.fwdBwd()));
            bwd.put("device_fwd_bwd_ms", m.deviceFwdBwdMs());
            bwd.put("device_fwd_bwd_kernel_ms", m.fwdBwdBusy().kernelMs());
            bwd.put("device_fwd_bwd_comm_ms", m.fwdBwdBusy().commMs());
            results.write(row(index++, backend, ring.kernels(shards, true), Pass.BWD, bwdWork, m.bwdMs()), bwd);
        }
        return index;
    }

    private static int[][] blocks(RingPlan plan, boolean q) {
        int[][] out = new int[plan.devices()][];
        for (int d = 0; d < out.length; d++) {
            out[d] = q ? plan.qBlocks(d) : plan.kvBlocks(d);
        }
        return out;
    }

    private Map<String, Object> extra(RingGpus ring, Measured m) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("ring_devices", m.devices());
        e.put("ring_scheme", m.scheme());
        e.put("ring_gpus", s.gpus());
        e.put("ring_virtual", ring.virtual());
        e.put("ring_transport", ring.transportName());
        e.put("ring_skipped_steps", m.skipped());
        e.put("max_rel_error_vs_single", m.maxErrorVsSingle());
        return e;
    }

    private BenchRow row(int index, String backend, String kernel, Pass pass, Work work, double[] samples) {
        return new BenchRow(index, name, Map.of(), Double.NaN, p, new KernelTiles(layout.blockQ(), layout.blockKv()), pass,
                backend, kernel, null, TileStats.of(layout), work, WARMUP, Timing.of(samples), BenchRow.OK);
    }

    private Single times(AttentionBackend gpu, Pass pass) {
        try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, pass, s.seed())) {
            for (int i = 0; i < WARMUP; i++) {
                run.runTimedMs();
            }
            double[] t = new double[Math.max(1, s.repeat())];
            for (int i = 0; i < t.length; i++) {
                t[i] = run.runTimedMs();
            }
            return new Single(run.kernelName(), t);
        }
    }

    static double median(double[] a) {
        double[] c = a.clone();
        Arrays.sort(c);
        return c.length == 0 ? Double.NaN : c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }
}
