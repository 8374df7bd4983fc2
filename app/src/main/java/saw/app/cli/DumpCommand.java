package saw.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionKernels;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.attention.RunRows;
import saw.engine.attention.SampledCheck;
import saw.engine.bench.Npy;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
import saw.engine.gpu.GpuBackend;
import saw.engine.format.LayoutFormats;
import saw.engine.guard.SizeGuard;
import saw.engine.io.AtomicFiles;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.TileLayout;

/**
 * {@code saw dump}: one seeded input set and saw's outputs for it, as NumPy .npy files, so another implementation
 * (bench/compare_flex.py check) can be compared with saw's on exactly the same numbers.
 */
@Command(name = "dump", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run one seeded input set and write inputs and outputs as .npy files into a folder:",
            "q, k, v, do [B,H,S,D] / [B,Hkv,S,D]; o, lse [B,H,Sq]; dq, dk, dv (float32, values exact in the dtype);",
            "with --sinks also sinks [H] and, after a backward pass, dsink [H];",
            "layout.flex.json, config.json and meta.json beside them.",
            "Sizes whose files would pass 4 GiB are refused (exit 2) unless --rows N asks for N sampled rows per head:",
            "rows.npy (batch, head, token) with q, do, o, dq [N,D] and lse [N]; kv_rows.npy with k, v, dk, dv."})
final class DumpCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SpecArgs args;

    @Option(names = "--batch", paramLabel = "B", description = "batch size (default: the config's)")
    int batch;

    @Option(names = "--heads", paramLabel = "H", description = "query heads (default: the config's)")
    int heads;

    @Option(names = "--kv-heads", paramLabel = "HKV", description = "key/value heads (default: H)")
    int kvHeads;

    @Option(names = "--head-dim", paramLabel = "D", defaultValue = "128", description = "head dim (default: ${DEFAULT-VALUE})")
    int headDim;

    @Option(names = "--sinks", description = "random learned sink logits (softmax_aux), one fp32 value per head")
    boolean sinks;

    @Option(names = "--dtype", paramLabel = "T", defaultValue = "bf16", description = "bf16 or fp16 (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--pass", paramLabel = "P", defaultValue = "bwd",
            description = "fwd (O and LSE) or bwd (also dQ, dK, dV from a random dO); default: ${DEFAULT-VALUE}")
    String pass;

    @Option(names = "--backend", paramLabel = "NAME", defaultValue = "cpu", description = "gpu or cpu (default: ${DEFAULT-VALUE})")
    String backendName;

    @Option(names = "--seed", paramLabel = "S", description = "seed of the inputs (default: 0)")
    long seed;

    @Option(names = "--rows", paramLabel = "N",
            description = "write only N seeded rows per head (the first, the last, random ones); inputs stay on the GPU")
    Integer rows;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "folder to write (created if missing)")
    String out;

    @Mixin
    NsaArgs nsa;

    @Override
    public Integer call() throws ConfigException, IOException {
        if (nsa.given()) {
            return dumpNsa();
        }
        MaskConfig c = args.load();
        int b = batch > 0 ? batch : c.batch();
        int h = heads > 0 ? heads : c.heads();
        AttentionProblem problem;
        Pass p;
        try {
            p = Pass.parse(pass);
            problem = AttentionProblem.of(b, h, kvHeads > 0 ? kvHeads : h, c.seqLenQ(), c.seqLenKv(), headDim, DType.parse(dtype));
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        if (rows == null && fileBytes(problem, p) > MAX_FILE_BYTES) {
            throw new BadInput("the .npy files of " + describe(problem) + " would take " + gib(fileBytes(problem, p))
                    + ", more than saw dump writes (" + gib(MAX_FILE_BYTES) + "); pass --rows N for N sampled rows per head");
        }
        if (rows != null && rows < 1) {
            throw new BadInput("--rows must be >= 1, got " + rows);
        }
        MaskConfig sized = new MaskConfig(c.name(), c.description(), c.seqLenQ(), c.seqLenKv(), b, h, c.block(), c.mask());
        TileLayout layout;
        try {
            SizeGuard.compile(sized).orThrow();
            SizeGuard.compileTime(sized).orThrow();
            layout = BoundMask.bind(c.mask(), new Dims(c.seqLenQ(), c.seqLenKv(), b, h)).compile(c.block().q(), c.block().kv());
        } catch (IllegalArgumentException e) {
            throw new BadInput(args.spec + " with batch " + b + " and " + h + " heads: " + e.getMessage());
        }
        Path dir = folder();
        if (rows != null) {
            String device = sampled(problem, layout, p == Pass.BWD, dir);
            writeSideFiles(dir, c, sized, problem, layout, p, b, h, device);
            return SawCli.OK;
        }
        AttentionInputs in;
        try {
            in = AttentionInputs.random(problem, seed, p == Pass.BWD);
            if (sinks) {
                in = in.withSinks(AttentionInputs.randomSinks(problem.heads(), seed));
            }
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        AttentionOutputs outputs;
        String device;
        try (AttentionBackend backend = Backends.open(backendName)) {
            if (!(backend instanceof AttentionKernels kernels)) {
                throw new BadInput("--backend " + backendName + " cannot hand back its outputs");
            }
            device = backend.device();
            try {
                outputs = p == Pass.BWD ? kernels.forwardBackward(in, layout) : kernels.forward(in, layout);
            } catch (IllegalArgumentException e) {
                throw new BadInput(backendName + ": " + e.getMessage());
            }
        }
        int[] qShape = {b, h, problem.seqQ(), headDim};
        int[] kvShape = {b, problem.kvHeads(), problem.seqKv(), headDim};
        write(dir, "q", qShape, in.q());
        write(dir, "k", kvShape, in.k());
        write(dir, "v", kvShape, in.v());
        write(dir, "o", qShape, outputs.get(AttentionOutputs.Output.O));
        write(dir, "lse", new int[] {b, h, problem.seqQ()}, outputs.get(AttentionOutputs.Output.LSE));
        if (p == Pass.BWD) {
            write(dir, "do", qShape, in.dO());
            write(dir, "dq", qShape, outputs.get(AttentionOutputs.Output.DQ));
            write(dir, "dk", kvShape, outputs.get(AttentionOutputs.Output.DK));
            write(dir, "dv", kvShape, outputs.get(AttentionOutputs.Output.DV));
        }
        if (sinks) {
            write(dir, "sinks", new int[] {h}, in.sinks());
            if (p == Pass.BWD) {
                write(dir, "dsink", new int[] {h}, outputs.get(AttentionOutputs.Output.DSINK));
            }
        }
        writeSideFiles(dir, c, sized, problem, layout, p, b, h, device);
        return SawCli.OK;
    }

    /** The most bytes of .npy files a whole dump writes; larger problems take --rows. */
    static final long MAX_FILE_BYTES = 4L << 30;

    /** Bytes of the fp32 .npy files of a whole dump. */
    static long fileBytes(AttentionProblem p, Pass pass) {
        long q = p.qElements();
        long kv = p.kvElements();
        return 4 * (pass == Pass.BWD ? 4 * q + 4 * kv + p.rows() : 2 * q + 2 * kv + p.rows());
    }

    private static String describe(AttentionProblem p) {
        return "B=" + p.batch() + " H=" + p.heads() + " Hkv=" + p.kvHeads() + " Sq=" + p.seqQ() + " Skv=" + p.seqKv()
                + " D=" + p.headDim();
    }

    private static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
    }

    /** Runs on the backend and writes the sampled rows; returns the device's description. */
    private String sampled(AttentionProblem problem, TileLayout layout, boolean backward, Path dir) throws IOException {
        List<SampledCheck.Row> qRows = SampledCheck.queryRows(problem, rows, seed);
        List<SampledCheck.Row> kvRows = SampledCheck.kvRows(problem, rows, seed);
        try (AttentionBackend backend = Backends.open(backendName)) {
            Function<RunRows, Map<String, float[]>> read = r -> collect(problem, r, qRows, kvRows, backward);
            Map<String, float[]> files;
            try {
                if (backend instanceof GpuBackend gpu) {
                    files = gpu.onDevice(problem, layout, backward, seed, read);
                } else if (backend instanceof AttentionKernels kernels) {
                    AttentionInputs in = AttentionInputs.random(problem, seed, backward);
                    files = read.apply(RunRows.of(in, backward ? kernels.forwardBackward(in, layout) : kernels.forward(in, layout)));
                } else {
                    throw new BadInput("--backend " + backendName + " cannot hand back its outputs");
                }
            } catch (IllegalArgumentException e) {
                throw new BadInput(backendName + ": " + e.getMessage());
            }
            Npy.writeInt32(dir.resolve("rows.npy"), new int[] {qRows.size(), 3}, indices(qRows));
            Npy.writeInt32(dir.resolve("kv_rows.npy"), new int[] {kvRows.size(), 3}, indices(kvRows));
            for (Map.Entry<String, float[]> f : files.entrySet()) {
                boolean kv = f.getKey().startsWith("k") || f.getKey().startsWith("v") || f.getKey().startsWith("dk")
                        || f.getKey().startsWith("dv");
                int n = kv ? kvRows.size() : qRows.size();
                int[] shape = f.getKey().equals("lse") ? new int[] {n} : new int[] {n, problem.headDim()};
                Npy.writeFloat32(dir.resolve(f.getKey() + ".npy"), shape, f.getValue());
            }
            return backend.device();
        }
    }

    private static Map<String, float[]> collect(AttentionProblem p, RunRows r, List<SampledCheck.Row> qRows,
            List<SampledCheck.Row> kvRows, boolean backward) {
        Map<String, float[]> out = new LinkedHashMap<>();
        List<String> qNames = new ArrayList<>(List.of("q", "o", "lse"));
        List<String> kvNames = new ArrayList<>(List.of("k", "v"));
        if (backward) {
            qNames.addAll(List.of("do", "dq"));
            kvNames.addAll(List.of("dk", "dv"));
        }
        for (String name : qNames) {
            out.put(name, gather(r, tensor(name), qRows, name.equals("lse") ? 1 : p.headDim()));
        }
        for (String name : kvNames) {
            out.put(name, gather(r, tensor(name), kvRows, p.headDim()));
        }
        return out;
    }

    private static RunRows.Tensor tensor(String name) {
        return name.equals("do") ? RunRows.Tensor.DO : RunRows.Tensor.valueOf(name.toUpperCase(Locale.ROOT));
    }

    private static float[] gather(RunRows r, RunRows.Tensor t, List<SampledCheck.Row> rows, int width) {
        float[] a = new float[rows.size() * width];
        for (int i = 0; i < rows.size(); i++) {
            SampledCheck.Row row = rows.get(i);
            System.arraycopy(r.rows(t, row.batch(), row.head(), row.token(), 1), 0, a, i * width, width);
        }
        return a;
    }

    private static int[] indices(List<SampledCheck.Row> rows) {
        int[] a = new int[rows.size() * 3];
        for (int i = 0; i < rows.size(); i++) {
            a[3 * i] = rows.get(i).batch();
            a[3 * i + 1] = rows.get(i).head();
            a[3 * i + 2] = rows.get(i).token();
        }
        return a;
    }

    private void writeSideFiles(Path dir, MaskConfig c, MaskConfig sized, AttentionProblem problem, TileLayout layout, Pass p,
            int b, int h, String device) throws IOException {
        try {
            AtomicFiles.write(dir.resolve("layout.flex.json"), s -> LayoutFormats.byName("flex").write(layout, s));
        } catch (IllegalArgumentException e) {
            throw new BadInput("flex: " + e.getMessage());
        }
        ConfigWriter.write(sized, dir.resolve("config.json"));
        ObjectNode meta = new ObjectMapper().createObjectNode();
        meta.put("schema", "saw.dump/1").put("config", c.name()).put("batch", b).put("heads", h)
                .put("kv_heads", problem.kvHeads()).put("seq_q", problem.seqQ()).put("seq_kv", problem.seqKv())
                .put("head_dim", headDim).put("dtype", problem.dtype().label()).put("scale", problem.scale())
                .put("softcap", problem.softcap()).put("sinks", sinks).put("block_q", layout.blockQ()).put("block_kv", layout.blockKv())
                .put("pass", p.label()).put("seed", seed).put("backend", backendName).put("device", device);
        if (rows != null) {
            meta.put("rows_per_head", rows);
        }
        byte[] metaJson = (new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(meta) + "\n").getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(dir.resolve("meta.json"), s -> s.write(metaJson));
        spec.commandLine().getOut().println(dir);
    }

    private int dumpNsa() throws ConfigException, IOException {
        NsaRuns.Setup s;
        boolean backward;
        try {
            backward = Pass.parse(pass) == Pass.BWD;
            TileLayout layout = null;
            if (nsa.fromMask()) {
                MaskConfig c = args.load();
                int b = batch > 0 ? batch : c.batch();
                layout = BoundMask.bind(c.mask(), new Dims(c.seqLenQ(), c.seqLenKv(), b, c.heads())).compile(c.block().q(),
                        c.block().kv());
            }
            s = NsaRuns.setup(nsa, new NsaRuns.Request(batch, heads, kvHeads, args.seq, headDim, DType.parse(dtype), null, 0,
                    seed), layout);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        Path dir = folder();
        try {
            NsaRuns.dump(s, backendName, backward, seed, dir);
        } catch (saw.engine.gpu.GpuException e) {
            spec.commandLine().getErr().println("saw dump: " + e.getMessage());
            return SawCli.INTERNAL_ERROR;
        }
        spec.commandLine().getOut().println(dir);
        return SawCli.OK;
    }

    private static void write(Path dir, String name, int[] shape, FloatBuffer values) throws IOException {
        float[] a = new float[values.remaining()];
        values.get(a);
        Npy.writeFloat32(dir.resolve(name + ".npy"), shape, a);
    }

    private Path folder() {
        try {
            Path dir = Path.of(out).toAbsolutePath();
            Files.createDirectories(dir);
            return dir;
        } catch (InvalidPathException | IOException e) {
            throw new BadInput("--out: cannot use the folder '" + out + "' (" + e.getMessage() + ")");
        }
    }
}
