package saw.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
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
import saw.engine.bench.Npy;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
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
            "layout.flex.json, config.json and meta.json beside them."})
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

    @Option(names = "--dtype", paramLabel = "T", defaultValue = "bf16", description = "bf16 or fp16 (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--pass", paramLabel = "P", defaultValue = "bwd",
            description = "fwd (O and LSE) or bwd (also dQ, dK, dV from a random dO); default: ${DEFAULT-VALUE}")
    String pass;

    @Option(names = "--backend", paramLabel = "NAME", defaultValue = "cpu", description = "gpu or cpu (default: ${DEFAULT-VALUE})")
    String backendName;

    @Option(names = "--seed", paramLabel = "S", description = "seed of the inputs (default: 0)")
    long seed;

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
        AttentionInputs in;
        try {
            in = AttentionInputs.random(problem, seed, p == Pass.BWD);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        AttentionOutputs outputs;
        String device;
        try (AttentionBackend backend = openBackend()) {
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
                .put("softcap", problem.softcap()).put("block_q", layout.blockQ()).put("block_kv", layout.blockKv())
                .put("pass", p.label()).put("seed", seed).put("backend", backendName).put("device", device);
        byte[] metaJson = (new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(meta) + "\n").getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(dir.resolve("meta.json"), s -> s.write(metaJson));
        spec.commandLine().getOut().println(dir);
        return SawCli.OK;
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

    private AttentionBackend openBackend() {
        try {
            return Backends.open(backendName);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--backend " + backendName + ": " + e.getMessage());
        }
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
