package saw.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.attention.Pass;
import saw.engine.bench.Npy;
import saw.engine.gpu.GpuException;
import saw.engine.gpu.NsaGpu;
import saw.engine.io.AtomicFiles;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.NsaCpu;
import saw.engine.nsa.NsaKernels;
import saw.engine.nsa.NsaReference;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaStats;

/** verify, bench and dump on an NSA selection (the {@code --nsa} runs of those commands). */
final class NsaRuns {
    /** Above this many multiply-adds in the reference (pairs * G * D), only the first and last kv-head groups are checked. */
    static final double FULL_CHECK_LIMIT = 1L << 33;

    private NsaRuns() {}

    /**
     * What the command line asked for; 0 (or null) means "not given". Heads default to the kv heads (G = 1); kv heads
     * to 1 for generated selections; batch to 1; a .npy selection gives batch, tokens and kv heads.
     */
    record Request(int batch, int heads, int kvHeads, Integer seq, int headDim, DType dtype, Double scale, double softcap,
                   long seed) {}

    /** The selection and the problem that runs on it. */
    record Setup(NsaSelection sel, AttentionProblem problem) {
        int group() {
            return problem.heads() / problem.kvHeads();
        }
    }

    static Setup setup(NsaArgs args, Request r, TileLayout maskLayout) {
        NsaSelection sel;
        int kvHeads = r.kvHeads() > 0 ? r.kvHeads() : r.heads() > 0 && args.fromMask() ? r.heads() : 1;
        int heads = r.heads() > 0 ? r.heads() : kvHeads;
        if (heads % kvHeads != 0) {
            throw new BadInput("--heads " + heads + " must be a multiple of --kv-heads " + kvHeads);
        }
        if (args.fromFile()) {
            sel = args.selection(0, 0, 0, 0, r.seed(), null);
            check("--batch", r.batch(), sel.batch());
            check("--seq", r.seq() == null ? 0 : r.seq(), sel.seqLen());
            check("--kv-heads", r.kvHeads(), sel.kvHeads());
            kvHeads = sel.kvHeads();
            heads = r.heads() > 0 ? r.heads() : kvHeads;
            if (heads % kvHeads != 0) {
                throw new BadInput("--heads " + heads + " must be a multiple of the selection's " + kvHeads + " kv heads");
            }
        } else if (args.fromMask()) {
            if (maskLayout == null) {
                throw new BadInput("--nsa mask needs SPEC, the mask to take the blocks from");
            }
            sel = args.selection(0, 0, kvHeads, heads / kvHeads, r.seed(), maskLayout);
        } else {
            if (r.seq() == null) {
                throw new BadInput("--seq is required with --nsa " + args.source);
            }
            if (args.s < 1 || args.block < 1) {
                throw new BadInput("--nsa-s and --nsa-block must be >= 1, got " + args.s + " and " + args.block);
            }
            sel = args.selection(Math.max(1, r.batch()), r.seq(), kvHeads, heads / kvHeads, r.seed(), null);
        }
        AttentionProblem p;
        try {
            p = new AttentionProblem(sel.batch(), heads, sel.kvHeads(), sel.seqLen(), sel.seqLen(), r.headDim(), r.dtype(),
                    r.scale() == null ? 1.0 / Math.sqrt(r.headDim()) : r.scale(), r.softcap());
            AttentionInputs.qSize(p);
            AttentionInputs.kvSize(p);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        return new Setup(sel, p);
    }

    private static void check(String option, int given, int inFile) {
        if (given > 0 && given != inFile) {
            throw new BadInput(option + " " + given + " differs from the selection file's " + inFile);
        }
    }

    static NsaKernels open(String backend) {
        switch (backend.toLowerCase(Locale.ROOT)) {
            case "gpu":
                return NsaGpu.open();
            case "cpu":
                return new NsaCpu();
            default:
                throw new BadInput("--backend " + backend + ": NSA runs on gpu or cpu");
        }
    }

    static String describe(Setup s) {
        AttentionProblem p = s.problem;
        return String.format(Locale.ROOT, "B=%d HQ=%d Hkv=%d G=%d T=%d D=%d %s block %d S %d softcap %s", p.batch(), p.heads(),
                p.kvHeads(), s.group(), p.seqQ(), p.headDim(), p.dtype().label(), s.sel.blockSize(), s.sel.maxSelected(),
                p.softcap() > 0 ? String.valueOf(p.softcap()) : "off");
    }

    /** saw verify --nsa: the backend's outputs against the fp64 reference; exit 3 on a mismatch. */
    static int verify(Setup s, String backend, boolean backward, long seed, PrintWriter out) {
        AttentionProblem p = s.problem;
        if ("gpu".equalsIgnoreCase(backend)) {
            String why = NsaGpu.unsupported(p, s.sel);
            if (why != null) {
                throw new BadInput(why);
            }
        }
        try (NsaKernels kernels = open(backend)) {
            AttentionInputs in = AttentionInputs.random(p, seed, backward);
            long t0 = System.nanoTime();
            AttentionOutputs got = backward ? kernels.forwardBackward(in, s.sel) : kernels.forward(in, s.sel);
            long t1 = System.nanoTime();
            int[] groups = sampledGroups(s);
            AttentionOutputs ref = NsaReference.compute(in, s.sel, backward, groups);
            long t2 = System.nanoTime();
            double tol = p.dtype().tolerance();
            String ranOn = kernels instanceof NsaGpu gpu ? "gpu (" + gpu.settings() + ")" : kernels.name();
            out.printf(Locale.ROOT, "saw verify --nsa  backend %s  %s  pairs %d  seed %d%n", ranOn, describe(s),
                    s.sel.selectedPairs() * s.group(), seed);
            int total = p.batch() * p.kvHeads();
            out.printf(Locale.ROOT, "checked: %s; kernels %.2f s, reference %.2f s%n",
                    groups.length == total ? "every head" : groups.length + " of " + total + " kv-head groups (all their q heads)",
                    (t1 - t0) / 1e9, (t2 - t1) / 1e9);
            out.printf("%-4s %10s %10s %6s  %s%n", "out", "rel.error", "tolerance", "NaN", "result");
            boolean pass = true;
            List<String> failed = new ArrayList<>();
            for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
                boolean ok = e.passes(tol);
                pass &= ok;
                if (!ok) {
                    failed.add(e.output().label());
                }
                out.printf(Locale.ROOT, "%-4s %10.2e %10.1e %6d  %s%n", e.output().label(), e.relError(), tol, e.nans(),
                        ok ? "ok" : "FAIL");
            }
            out.println(pass ? "PASS" : "FAIL: " + String.join(", ", failed));
            out.flush();
            return pass ? SawCli.OK : VerifyCommand.MISMATCH;
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
    }

    static int[] sampledGroups(Setup s) {
        int groups = s.problem.batch() * s.problem.kvHeads();
        double work = (double) s.sel.selectedPairs() * s.group() * s.problem.headDim();
        if (work <= FULL_CHECK_LIMIT || groups <= 2) {
            int[] all = new int[groups];
            Arrays.setAll(all, i -> i);
            return all;
        }
        return new int[] {0, groups - 1};
    }

    /**
     * saw bench --nsa: times each pass and writes one JSON line per pass ({@code saw.bench-nsa/1}) with the selection's
     * S, block size, G, pairs and useful FLOPs (4 * D * pairs over query heads; backward 2.5x); prints a table.
     */
    static void bench(List<Setup> setups, String backend, List<Pass> passes, int warmup, int reps, long seed, Path outFile,
                      String command, PrintWriter out) throws IOException {
        if (reps < 1 || warmup < 0) {
            throw new BadInput("--reps must be >= 1 and --warmup >= 0, got " + reps + " and " + warmup);
        }
        StringBuilder lines = new StringBuilder();
        ObjectMapper json = new ObjectMapper();
        try (NsaKernels kernels = open(backend)) {
            for (Setup s : setups) {
            AttentionProblem p = s.problem;
            NsaStats stats = NsaStats.of(s.sel, Math.max(1, 64 / s.group()));
            double walkSharing = kernels instanceof NsaGpu ? NsaGpu.walkSharing(s.sel) : Double.NaN;
            // once a setup, not a pass, from the sharing counted above (counting builds the walk's table)
            String autoForward = kernels instanceof NsaGpu gpu
                    ? gpu.autoForward(p, s.sel, walkSharing).name().toLowerCase(Locale.ROOT) : null;
            long pairs = stats.selectedPairs() * s.group();
            for (Pass pass : passes) {
                double[] ms = new double[reps];
                String kernel;
                if (kernels instanceof NsaGpu gpu) {
                    String why = NsaGpu.unsupported(p, s.sel);
                    if (why != null) {
                        throw new BadInput(why);
                    }
                    try (AttentionBackend.PreparedRun run = gpu.prepare(p, s.sel, pass, seed)) {
                        kernel = run.kernelName();
                        for (int i = 0; i < warmup; i++) {
                            run.runTimedMs();
                        }
                        for (int i = 0; i < reps; i++) {
                            ms[i] = run.runTimedMs();
                        }
                    }
                } else {
                    kernel = "nsa-cpu-" + pass.label() + (pass == Pass.BWD ? " (with forward)" : "");
                    AttentionInputs in = AttentionInputs.random(p, seed, pass == Pass.BWD);
                    for (int i = 0; i < warmup + reps; i++) {
                        long t0 = System.nanoTime();
                        if (pass == Pass.BWD) {
                            kernels.forwardBackward(in, s.sel);
                        } else {
                            kernels.forward(in, s.sel);
                        }
                        if (i >= warmup) {
                            ms[i - warmup] = (System.nanoTime() - t0) / 1e6;
                        }
                    }
                }
                double[] sorted = ms.clone();
                Arrays.sort(sorted);
                double median = sorted[reps / 2];
                double flops = 4.0 * p.headDim() * pairs * (pass == Pass.BWD ? 2.5 : 1);
                double tflops = flops / (median * 1e-3) / 1e12;
                ObjectNode row = json.createObjectNode();
                row.put("schema", "saw.bench-nsa/1").put("command", command).put("backend", kernels.name())
                        .put("device", kernels instanceof NsaGpu gpu ? gpu.device() : "CPU").put("kernel", kernel)
                        .put("pass", pass.label()).put("batch", p.batch()).put("heads", p.heads()).put("kv_heads", p.kvHeads())
                        .put("group", s.group()).put("seq", p.seqQ()).put("head_dim", p.headDim()).put("dtype", p.dtype().label())
                        .put("softcap", p.softcap()).put("S", s.sel.maxSelected()).put("block", s.sel.blockSize())
                        .put("selected_pairs", pairs).put("useful_flops", flops).put("median_ms", median)
                        .put("min_ms", sorted[0]).put("max_ms", sorted[reps - 1]).put("reps", reps).put("warmup", warmup)
                        .put("useful_tflops", tflops).put("distinct_blocks_per_tile", stats.meanDistinctBlocks())
                        .put("tile_tokens", stats.tileTokens()).put("sharing", stats.meanSharing()).put("seed", seed);
                if (kernels instanceof NsaGpu gpu) {
                    row.put("settings", gpu.settings()).put("auto_forward", autoForward);
                    if (!Double.isNaN(walkSharing)) {
                        row.put("walk_sharing", walkSharing);
                    }
                }
                lines.append(json.writeValueAsString(row)).append('\n');
                out.printf(Locale.ROOT, "nsa %-3s %-30s %s  pairs %d  median %.3f ms  %.1f TFLOP/s useful%n", pass.label(),
                        kernel, describe(s), pairs, median, tflops);
                out.flush();
            }
            }
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        byte[] bytes = lines.toString().getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(outFile, o -> o.write(bytes));
    }

    /** saw dump --nsa: inputs, outputs and the selection as .npy files, with meta.json. */
    static void dump(Setup s, String backend, boolean backward, long seed, Path dir) throws IOException {
        AttentionProblem p = s.problem;
        AttentionInputs in;
        AttentionOutputs outputs;
        String device;
        try (NsaKernels kernels = open(backend)) {
            in = AttentionInputs.random(p, seed, backward);
            outputs = backward ? kernels.forwardBackward(in, s.sel) : kernels.forward(in, s.sel);
            device = kernels instanceof NsaGpu gpu ? gpu.device() : "CPU";
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        int[] qShape = {p.batch(), p.heads(), p.seqQ(), p.headDim()};
        int[] kvShape = {p.batch(), p.kvHeads(), p.seqKv(), p.headDim()};
        write(dir, "q", qShape, in.q());
        write(dir, "k", kvShape, in.k());
        write(dir, "v", kvShape, in.v());
        write(dir, "o", qShape, outputs.get(AttentionOutputs.Output.O));
        write(dir, "lse", new int[] {p.batch(), p.heads(), p.seqQ()}, outputs.get(AttentionOutputs.Output.LSE));
        if (backward) {
            write(dir, "do", qShape, in.dO());
            write(dir, "dq", qShape, outputs.get(AttentionOutputs.Output.DQ));
            write(dir, "dk", kvShape, outputs.get(AttentionOutputs.Output.DK));
            write(dir, "dv", kvShape, outputs.get(AttentionOutputs.Output.DV));
        }
        NsaSelection sel = s.sel;
        Npy.writeInt32(dir.resolve("block_indices.npy"), new int[] {sel.batch(), sel.seqLen(), sel.kvHeads(), sel.maxSelected()},
                sel.indices());
        Npy.writeInt32(dir.resolve("block_counts.npy"), new int[] {sel.batch(), sel.seqLen(), sel.kvHeads()}, sel.counts());
        ObjectNode meta = new ObjectMapper().createObjectNode();
        meta.put("schema", "saw.dump-nsa/1").put("batch", p.batch()).put("heads", p.heads()).put("kv_heads", p.kvHeads())
                .put("seq", p.seqQ()).put("head_dim", p.headDim()).put("dtype", p.dtype().label()).put("scale", p.scale())
                .put("softcap", p.softcap()).put("block", sel.blockSize()).put("S", sel.maxSelected())
                .put("pass", backward ? "bwd" : "fwd").put("seed", seed).put("backend", backend).put("device", device)
                .put("layout", "q, k, v, o, do, dq, dk, dv: [B, heads, T, D]; lse: [B, H, T]; block_indices [B, T, Hkv, S]");
        byte[] metaJson = (new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(meta) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(dir.resolve("meta.json"), o -> o.write(metaJson));
    }

    private static void write(Path dir, String name, int[] shape, FloatBuffer values) throws IOException {
        float[] a = new float[values.remaining()];
        values.get(a);
        Npy.writeFloat32(dir.resolve(name + ".npy"), shape, a);
    }
}
