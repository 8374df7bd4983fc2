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
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionKernels;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.Pass;
import saw.engine.attention.RunRows;
import saw.engine.attention.SampledCheck;
import saw.engine.config.ConfigException;
import saw.engine.cpu.CpuBackend;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.cpu.ReferenceBackend;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuException;
import saw.engine.mask.Dims;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.TileLayout;

/** {@code saw verify}: runs a backend on fresh random inputs and compares every output with the fp64 reference. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Runs the attention kernels on random inputs and prints each output's relative error "
                + "||out - ref|| / ||ref|| against the fp64 reference.",
                "Exits 3 when an error is above the dtype's tolerance (bf16 1e-2, fp16 2e-3), an output holds NaN "
                        + "or was never written; 2 on bad input; 1 on a GPU failure."})
final class VerifyCommand implements Callable<Integer> {
    static final int MISMATCH = 3;
    /** Above this many pair-dimension products (B*H*Sq*Skv*D) only some kv-head groups are checked. */
    static final double FULL_CHECK_LIMIT = 1L << 33;
    static final int SAMPLED_GROUPS = 2;

    @Parameters(index = "0", arity = "0..1", paramLabel = "SPEC", description = "a saw.mask/1 config file, preset:NAME, or a one-line "
            + "mask such as causal, window(256), and(causal,docs(3000,5000)), heads(causal,window(64)) (docs/gpu.md)")
    String spec;

    @Option(names = "--seq", description = "query tokens (Sq); required for a one-line mask, else the config's")
    Integer seq;

    @Option(names = "--seq-kv", description = "key/value tokens (Skv); default Sq")
    Integer seqKv;

    @Option(names = "--batch", description = "default: the config's, or 1")
    Integer batch;

    @Option(names = "--heads", description = "default: the config's, or 4")
    Integer heads;

    @Mixin
    KernelRunOptions kernelRun;

    @Option(names = "--block", description = "tile QxKV, e.g. 128x64; default: the config's, or 128x64")
    String block;

    @Option(names = "--backend", defaultValue = "gpu", description = "gpu, cpu or cpu-reference (checks the checker)")
    String backend;

    @Option(names = "--softcap", defaultValue = "0", description = "logit softcap (0 = off)")
    double softcap;

    @Option(names = "--scale", description = "softmax scale; default 1/sqrt(head dim)")
    Double scale;

    @Option(names = "--rows", paramLabel = "N", description = "check N seeded rows per head (inputs drawn on the GPU, only "
            + "those rows copied back); the default past " + (Integer.MAX_VALUE - 16) + " elements per tensor, with N = "
            + DEFAULT_ROWS)
    Integer rows;

    static final int DEFAULT_ROWS = 8;
    @Option(names = "--sinks", description = "learned sink logits (softmax_aux), one random fp32 value per head in [-2, 4); "
            + "checks dSink too after a backward pass")
    boolean sinks;

    @Option(names = "--no-cache", description = "on the GPU without --block, ignore the tuned choice of 'saw tune'")
    boolean noCache;
    @Mixin
    NsaArgs nsa;

    @Spec
    CommandSpec commandSpec;

    @Mixin
    RemoteOptions remote;

    @Override
    public Integer call() throws ConfigException {
        if (remote.active()) {
            return remote.runElsewhere(commandSpec);
        }
        if (nsa.given()) {
            return verifyNsa();
        }
        if (spec == null) {
            throw new BadInput("SPEC is required (a mask), unless --nsa names a selection");
        }
        Setup s;
        try {
            s = setup();
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        if (rows != null && rows < 1) {
            throw new BadInput("--rows must be >= 1, got " + rows);
        }
        if (rows != null || s.problem.qElements() > Integer.MAX_VALUE - 16) {
            return sampled(s, rows == null ? DEFAULT_ROWS : rows);
        }
        try (AttentionKernels kernels = open(backend)) {
            if (kernels instanceof GpuBackend && block == null && !noCache) {
                Pass pass = s.backward ? Pass.BWD : Pass.FWD;
                TileLayout tuned = TunedChoice.apply((GpuBackend) kernels, s.problem, s.layout, pass, sinks,
                        new PrintWriter(System.err, true));
                if (tuned != null) {
                    s.layout = tuned;
                }
            }
            AttentionInputs in = AttentionInputs.random(s.problem, kernelRun.seed, s.backward);
            if (sinks) {
                in = in.withSinks(AttentionInputs.randomSinks(s.problem.heads(), kernelRun.seed));
            }
            long t0 = System.nanoTime();
            AttentionOutputs got = s.backward ? kernels.forwardBackward(in, s.layout) : kernels.forward(in, s.layout);
            long t1 = System.nanoTime();
            int[] groups = sampledGroups(s.problem);
            AttentionOutputs ref = ReferenceAttention.compute(in, s.layout.mask(), s.backward, groups);
            long t2 = System.nanoTime();
            return report(s, kernels.name(), groups, OutputComparison.compare(got, ref), (t1 - t0) / 1e9, (t2 - t1) / 1e9);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        } catch (GpuException e) {
            System.err.println("saw verify: " + e.getMessage());
            return SawCli.INTERNAL_ERROR;
        }
    }

    /** A seeded sample of rows per head against the fp64 reference, read from where the run's tensors live. */
    private int sampled(Setup s, int rowsPerHead) {
        try (AttentionKernels kernels = open(backend)) {
            long t0 = System.nanoTime();
            SampledCheck.Result r;
            String tables = "";
            if (kernels instanceof GpuBackend gpu) {
                r = gpu.checkSampled(s.problem, s.layout, s.backward, kernelRun.seed, rowsPerHead);
                tables = String.valueOf(gpu.lastTables());
            } else {
                AttentionInputs in = AttentionInputs.random(s.problem, kernelRun.seed, s.backward);
                AttentionOutputs got = s.backward ? kernels.forwardBackward(in, s.layout) : kernels.forward(in, s.layout);
                r = SampledCheck.check(s.problem, s.layout, s.backward, RunRows.of(in, got), rowsPerHead, kernelRun.seed);
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            printHeader(s, kernels.name());
            System.out.printf(Locale.ROOT, "checked: %d query rows (%d per head)%s, seed %d; run and reference %.2f s%n",
                    r.queryRows().size(), Math.min(rowsPerHead, s.problem.seqQ()),
                    s.backward ? " and " + r.kvRows().size() + " kv rows for dK, dV" + (r.kvRowsPassedOver() > 0
                            ? " (" + r.kvRowsPassedOver() + " drawn kv rows passed over: more than "
                            + SampledCheck.MAX_KV_CONTRIBUTORS + " query rows attend each)" : "") : "", kernelRun.seed, secs);
            if (!tables.isEmpty()) {
                System.out.println(tables);
            }
            System.out.println("query rows: " + rowList(r.queryRows()));
            if (s.backward) {
                System.out.println("kv rows: " + rowList(r.kvRows()));
            }
            return table(s.problem, r.errors());
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
    }

    private int verifyNsa() throws ConfigException {
        try {
            return verifyNsaChecked();
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
    }

    private int verifyNsaChecked() throws ConfigException {
        boolean backward = kernelRun.backward();
        TileLayout layout = null;
        if (nsa.fromMask()) {
            if (spec == null) {
                throw new BadInput("--nsa mask needs SPEC, the mask to take the blocks from");
            }
            layout = setup().layout;
        }
        NsaRuns.Request r = new NsaRuns.Request(batch == null ? 0 : batch, heads == null ? 0 : heads,
                kernelRun.kvHeads(0), seq, kernelRun.headDim, kernelRun.dtype(), scale, softcap, kernelRun.seed);
        NsaRuns.Setup s = NsaRuns.setup(nsa, r, layout);
        try {
            return NsaRuns.verify(s, backend, backward, kernelRun.seed, new java.io.PrintWriter(System.out, true));
        } catch (GpuException e) {
            System.err.println("saw verify: " + e.getMessage());
            return SawCli.INTERNAL_ERROR;
        }
    }

    /** Rows grouped by head: "b0 h0 [0, 17, 4095]; b0 h1 [...]". */
    static String rowList(List<SampledCheck.Row> rows) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < rows.size()) {
            SampledCheck.Row first = rows.get(i);
            List<String> tokens = new ArrayList<>();
            while (i < rows.size() && rows.get(i).batch() == first.batch() && rows.get(i).head() == first.head()) {
                tokens.add(String.valueOf(rows.get(i++).token()));
            }
            out.append(out.length() == 0 ? "" : "; ").append("b").append(first.batch()).append(" h").append(first.head())
                    .append(" ").append(tokens);
        }
        return out.toString();
    }

    private static final class Setup {
        AttentionProblem problem;
        TileLayout layout;
        boolean backward;
    }

    private Setup setup() throws ConfigException {
        Setup s = new Setup();
        MaskSpec m = MaskSpec.of(spec, seq, batch, heads, block, "128x64");
        DType type = kernelRun.dtype();
        KernelTiles tiles = KernelTiles.parse(m.tile());
        int skv = seqKv == null ? m.seqKv() : seqKv;
        int hkv = kernelRun.kvHeads(m.heads());
        s.problem = new AttentionProblem(m.batch(), m.heads(), hkv, m.seqQ(), skv, kernelRun.headDim, type,
                scale == null ? 1.0 / Math.sqrt(kernelRun.headDim) : scale, softcap);
        Dims dims = new Dims(m.seqQ(), skv, m.batch(), m.heads());
        List<MaskChecks.Problem> problems = MaskChecks.check(m.mask(), dims);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(problems.get(0).toString());
        }
        s.backward = kernelRun.backward();
        s.layout = MaskSpec.compile(spec, m.mask(), dims, tiles);
        return s;
    }

    private static AttentionKernels open(String backend) {
        switch (backend.toLowerCase(Locale.ROOT)) {
            case "gpu": return GpuBackend.open();
            case "cpu": return new CpuBackend();
            case "cpu-reference": return new ReferenceBackend();
            default: throw new IllegalArgumentException("backend '" + backend + "' is not one of gpu, cpu, cpu-reference");
        }
    }

    /** Every group for small problems; else the first and the last kv-head group (every q head sharing it). */
    static int[] sampledGroups(AttentionProblem p) {
        int groups = p.batch() * p.kvHeads();
        double work = (double) p.batch() * p.heads() * p.seqQ() * p.seqKv() * p.headDim();
        if (work <= FULL_CHECK_LIMIT || groups <= SAMPLED_GROUPS) {
            int[] all = new int[groups];
            for (int g = 0; g < groups; g++) {
                all[g] = g;
            }
            return all;
        }
        return new int[] {0, groups - 1};
    }

    private int report(Setup s, String kernels, int[] groups, List<OutputComparison.Error> errors, double runS, double refS) {
        AttentionProblem p = s.problem;
        printHeader(s, kernels);
        int total = p.batch() * p.kvHeads();
        System.out.printf(Locale.ROOT, "checked: %s; kernels %.2f s, reference %.2f s%n",
                groups.length == total ? "every head" : groups.length + " of " + total + " kv-head groups (all their q heads)",
                runS, refS);
        return table(p, errors);
    }

    private void printHeader(Setup s, String kernels) {
        AttentionProblem p = s.problem;
        System.out.printf(Locale.ROOT, "saw verify %s  backend %s  B=%d H=%d Hkv=%d Sq=%d Skv=%d D=%d %s block %dx%d softcap %s sinks %s seed %d%n",
                spec, kernels, p.batch(), p.heads(), p.kvHeads(), p.seqQ(), p.seqKv(), p.headDim(), p.dtype().label(),
                s.layout.blockQ(), s.layout.blockKv(), p.softcap() > 0 ? String.valueOf(p.softcap()) : "off",
                sinks ? "random" : "off", kernelRun.seed);
    }

    private static int table(AttentionProblem p, List<OutputComparison.Error> errors) {
        double tol = p.dtype().tolerance();
        System.out.printf("%-4s %10s %10s %6s  %s%n", "out", "rel.error", "tolerance", "NaN", "result");
        boolean pass = true;
        List<String> failed = new ArrayList<>();
        for (OutputComparison.Error e : errors) {
            boolean ok = e.passes(tol);
            pass &= ok;
            if (!ok) {
                failed.add(e.output().label());
            }
            System.out.printf(Locale.ROOT, "%-4s %10.2e %10.1e %6d  %s%n", e.output().label(), e.relError(), tol, e.nans(),
                    !ok ? "FAIL" : e.compared() == 0 ? "not checked (no row)" : "ok");
        }
        System.out.println(pass ? "PASS" : "FAIL: " + String.join(", ", failed));
        return pass ? SawCli.OK : MISMATCH;
    }
}
