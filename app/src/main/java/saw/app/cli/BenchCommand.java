package saw.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.bench.BadSweep;
import saw.engine.bench.BenchEnvironment;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsCsv;
import saw.engine.bench.ResultsWriter;
import saw.engine.bench.Sweep;
import saw.engine.bench.SweepPoint;
import saw.engine.bench.SweepRunner;
import saw.engine.bench.Vary;
import saw.engine.config.BlockSize;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
import saw.engine.config.SpecLoader;
import saw.engine.format.LayoutFormat;
import saw.engine.format.LayoutFormats;
import saw.engine.gpu.GpuBackend;
import saw.engine.io.AtomicFiles;
import saw.engine.mask.BoundMask;
import saw.engine.tune.GpuCandidates;
import saw.engine.tune.MaskSignature;
import saw.engine.tune.TuneCache;
import saw.engine.tune.TuneChoice;
import saw.engine.tune.TuneKey;

/**
 * {@code saw bench}: times a sweep of configs, tile sizes and passes on one backend and writes a {@code saw.bench/1}
 * results file row by row (docs/bench-format.md), with a progress bar on stderr.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Time attention over a sweep of masks, tile sizes and passes; write saw.bench/1 results row by row.",
            "Rows are flushed as they finish, so an interrupted sweep keeps every finished row. See docs/bench-format.md.",
            "Exits 3 when no point of the sweep ran (every row failed); a partly failed sweep exits 0 and its last line "
                    + "says how many points failed; 2 on bad input."})
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "SPEC",
            description = MaskSpec.DESCRIPTION + " (its first value); optional with --nsa")
    String specName;

    @Mixin
    NsaArgs nsa;

    @Option(names = "--vary", paramLabel = "POINTER=v1,v2",
            description = "sweep a numeric config field by JSON pointer, e.g. /mask/and/1/sliding_window/left=256,1024 (repeatable: all combinations)")
    List<String> vary = new ArrayList<>();

    @Option(names = "--density", split = ",", paramLabel = "D",
            description = "replace the mask by random blocks at these block densities in (0, 1], e.g. 0.05,0.25,1")
    List<Double> densities = new ArrayList<>();

    @Option(names = "--seq", split = ",", paramLabel = "N", description = "query and key lengths (a list sweeps them; default: the config's; a one-line mask needs it)")
    List<Integer> seqs = new ArrayList<>();

    @Option(names = "--block", split = ",", paramLabel = "QxKV", description = "tile sizes, e.g. 64x64,128x64 (default: the config's block)")
    List<String> blocks = new ArrayList<>();

    @Option(names = "--pass", split = ",", paramLabel = "P", defaultValue = "fwd", description = "fwd, bwd or fwd,bwd (default: ${DEFAULT-VALUE})")
    List<String> passes;

    @Option(names = "--batch", paramLabel = "B", description = "batch size (default: the config's)")
    int batch;

    @Option(names = "--heads", paramLabel = "H", description = "query heads (default: the config's)")
    int heads;

    @Option(names = "--kv-heads", paramLabel = "HKV", description = "key/value heads, dividing H (default: H)")
    int kvHeads;

    @Option(names = "--head-dim", split = ",", paramLabel = "D", defaultValue = "128", description = "head dims (default: ${DEFAULT-VALUE})")
    List<Integer> headDims;

    @Option(names = "--dtype", paramLabel = "T", defaultValue = "bf16", description = "bf16 or fp16 (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--backend", paramLabel = "NAME", defaultValue = "cpu", description = "gpu or cpu (default: ${DEFAULT-VALUE})")
    String backendName;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "results file (saw.bench/1, JSON Lines)")
    String out;

    @Option(names = "--csv", paramLabel = "FILE", description = "also write the rows as CSV")
    String csv;

    @Option(names = "--export-flex", paramLabel = "DIR",
            description = "also write each timed layout in the flex format (FlexAttention's BlockMask.from_kv_blocks) to DIR, with its mask config; rows name the flex file, or the config where the flex file would pass 2 GB")
    String exportFlex;

    @Option(names = "--reps", paramLabel = "N", description = "timed repetitions per point (default: 20)")
    int reps = SweepRunner.Settings.DEFAULT_REPS;

    @Option(names = "--warmup", paramLabel = "N", description = "untimed runs before them (default: 5)")
    int warmup = SweepRunner.Settings.DEFAULT_WARMUP;

    @Option(names = "--seed", paramLabel = "S", description = "seed of the random inputs and random blocks (default: 0)")
    long seed;

    @Option(names = "--no-cache", description = "on the GPU without --block, ignore the tuned choices of 'saw tune'")
    boolean noCache;

    @Option(names = "--sinks", description = "time learned sink logits too: random fp32 values, one per head (rows record sinks: true)")
    boolean sinks;

    @Option(names = "--resume", description = "keep the rows already in --out (an interrupted sweep) and run the rest")
    boolean resume;

    @Option(names = "--first-row", paramLabel = "K", description = "start at row K of the sweep; the rows before it are not run (--resume sets it)")
    int firstRow;

    @Mixin
    RemoteOptions remote;

    @Override
    public Integer call() throws ConfigException, IOException {
        if (nsa.given()) {
            return benchNsa();
        }
        if (specName == null) {
            throw new BadInput("SPEC is required (a config, preset or one-line mask), unless --nsa names a selection");
        }
        MaskConfig config = MaskSpec.config(specName, seqs.isEmpty() ? null : seqs.get(0));
        Sweep sweep = new Sweep(specName, tree(config), parseVary(), densities, seqs, tiles(config), OptionValues.passes("--pass", passes), batch,
                heads, kvHeads, headDims, OptionValues.dtype(dtype), seed);
        List<SweepPoint> points;
        try {
            points = sweep.points();
        } catch (BadSweep e) {
            throw new BadInput(e.getMessage());
        }
        SweepRunner.Settings settings;
        try {
            settings = new SweepRunner.Settings(warmup, reps, seed, sinks);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        boolean toStdout = out.equals("-");
        Path outFile = toStdout ? null : outputFile("--out", out);
        Path csvFile = csv == null ? null : outputFile("--csv", csv);
        int first = resume ? RemoteBench.resumeFrom(outFile, points, err) : firstRow;
        if (first < 0 || first > points.size()) {
            throw new BadInput("--first-row: " + first + " is not in 0.." + points.size());
        }
        if (first == points.size()) {
            err.println("saw bench: all " + points.size() + " rows are already in " + outFile);
            return SawCli.OK;
        }
        if (remote.active()) {
            return new RemoteBench(spec, remote, points, first, resume, outFile, csvFile).run();
        }
        Path layoutDir = exportFlex == null ? null : layoutFolder();
        try (AttentionBackend backend = Backends.open(backendName)) {
            if (sinks && !backend.timesSinks()) {
                throw new BadInput(AttentionBackend.sinksRefusal(backend.name()));
            }
            List<SweepPoint> planned = backend instanceof GpuBackend && blocks.isEmpty() && !noCache
                    ? tuned((GpuBackend) backend, points, sinks, err) : points;
            BenchEnvironment env = Backends.environment(backend, String.join(" ", spec.commandLine().getParseResult().originalArgs()));
            try (ResultsWriter results = toStdout ? ResultsWriter.to(new StdoutRows(spec.commandLine().getOut()), env)
                    : resume ? ResultsWriter.append(outFile) : ResultsWriter.create(outFile, env);
                 ResultsCsv table = csvFile == null ? null : RemoteBench.csv(csvFile, outFile, resume)) {
                err.println("saw bench: " + (points.size() - first) + " points" + (first > 0 ? " (from row " + first + ")" : "")
                        + " on " + backend.name() + " (" + backend.device() + "), "
                        + settings.warmup() + " warm-up + " + settings.reps() + " timed runs each -> " + (toStdout ? "stdout" : outFile));
                ProgressBar bar = new ProgressBar(err, System.console() != null);
                SweepRunner.LayoutSink layouts = layoutDir == null ? (row, point, layout) -> "" : flexExport(layoutDir, outFile, err);
                SweepRunner.Outcome outcome = new SweepRunner(backend, settings, layouts).run(planned, first, new SweepRunner.Listener() {
                    @Override
                    public void pointStarted(SweepPoint point, SweepRunner.Progress progress) {
                        bar.update(progress, point.label());
                    }

                    @Override
                    public void rowFinished(BenchRow row, SweepRunner.Progress progress) {
                        results.accept(row);
                        if (table != null) {
                            table.accept(row);
                        }
                        if (!row.ok()) {
                            bar.finish();
                            err.println("saw bench: point " + row.index() + " " + planned.get(row.index()).label() + ": " + row.status());
                        }
                        bar.update(progress, "");
                    }
                }, () -> Thread.currentThread().isInterrupted());
                bar.finish();
                err.println(summary(outcome, toStdout ? "stdout" : String.valueOf(outFile)));
                return exitCode(outcome);
            }
        }
    }

    /** Exit status when every point of a sweep failed (a partly failed sweep exits 0 and says so in its last line). */
    static final int NO_POINT_RAN = 3;

    static String summary(SweepRunner.Outcome outcome, String where) {
        String written = outcome.rows() + " rows (" + outcome.failed() + " failed) written to " + where;
        if (outcome.failed() == 0) {
            return "saw bench: " + written + (outcome.cancelled() ? "; cancelled before the sweep's end" : "");
        }
        if (outcome.failed() == outcome.rows()) {
            return "saw bench: " + written + "; every point failed (" + outcome.failed() + " of " + outcome.rows() + ")";
        }
        return "saw bench: " + written + "; " + outcome.failed() + " of " + outcome.rows() + " points failed (their rows say why)";
    }

    static int exitCode(SweepRunner.Outcome outcome) {
        return outcome.rows() > 0 && outcome.failed() == outcome.rows() ? NO_POINT_RAN : SawCli.OK;
    }

    /** Each point at its tuned tile (and the GPU at its tuned families) where the tune cache has one; says which. */
    private static List<SweepPoint> tuned(GpuBackend gpu, List<SweepPoint> points, boolean sinks, PrintWriter err) {
        TuneCache cache = new TuneCache(TuneCache.defaultFile(), w -> err.println("saw bench: warning: " + w));
        List<SweepPoint> out = new ArrayList<>();
        for (SweepPoint p : points) {
            TuneKey key = TuneKey.of(gpu.identity(), p.pass(), p.problem(), sinks,
                    MaskSignature.of(BoundMask.bind(p.mask(), p.dims())));
            Optional<TuneChoice> c = cache.lookup(key);
            if (c.isEmpty()) {
                out.add(p);
                continue;
            }
            GpuCandidates.apply(gpu, c.get().winner(), p.pass());
            err.println("saw bench: " + p.label() + ": using the tuned choice " + c.get().winner() + " from " + cache.file());
            out.add(new SweepPoint(p.config(), p.varied(), p.density(), p.mask(), p.problem(), c.get().winner().tiles(), p.pass()));
        }
        return out;
    }

    /** One setup per --seq and --head-dim; the mask of SPEC (for --nsa mask) compiled at its block and each length. */
    private int benchNsa() throws ConfigException, IOException {
        List<NsaRuns.Setup> setups = new ArrayList<>();
        List<Integer> lengths = seqs.isEmpty() ? java.util.Collections.singletonList(null) : seqs;
        try {
            DType type = OptionValues.dtype(dtype);
            for (Integer n : lengths) {
                for (int d : headDims) {
                    saw.engine.mask.TileLayout layout = null;
                    if (nsa.fromMask()) {
                        if (specName == null) {
                            throw new BadInput("--nsa mask needs SPEC, the mask to take the blocks from");
                        }
                        MaskConfig c = MaskSpec.config(specName, n);
                        int len = n == null ? c.seqLenQ() : n;
                        int b = batch > 0 ? batch : c.batch();
                        layout = saw.engine.mask.BoundMask.bind(c.mask(), new saw.engine.mask.Dims(len, len, b, c.heads()))
                                .compile(c.block().q(), c.block().kv());
                    }
                    NsaRuns.Request r = new NsaRuns.Request(batch, heads, kvHeads, n, d, type, null, 0, seed);
                    setups.add(NsaRuns.setup(nsa, r, layout));
                }
            }
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        try {
            NsaRuns.bench(setups, backendName, OptionValues.passes("--pass", passes), warmup, reps, seed, outputFile("--out", out),
                    String.join(" ", spec.commandLine().getParseResult().originalArgs()), spec.commandLine().getOut());
        } catch (saw.engine.gpu.GpuException e) {
            err.println("saw bench: " + e.getMessage());
            return SawCli.INTERNAL_ERROR;
        }
        return SawCli.OK;
    }

    /**
     * Writes each layout as DIR/layout-ROW.flex.json, with the config it was compiled from (mask, sizes, tile size;
     * swept values applied) beside it as DIR/layout-ROW.config.json; rows name the flex file relative to the results
     * file's folder. A layout whose flex file would be too large (past 2M tokens at 128x128) gets only its config,
     * and its row names that: FlexAttention's side then builds the block mask from the mask itself.
     */
    private static SweepRunner.LayoutSink flexExport(Path dir, Path results, PrintWriter err) {
        LayoutFormat flex = LayoutFormats.byName("flex");
        return (row, point, layout) -> {
            Path file = dir.resolve("layout-" + row + ".flex.json");
            Path configFile = dir.resolve("layout-" + row + ".config.json");
            MaskConfig config = new MaskConfig(point.config(), "", point.problem().seqQ(), point.problem().seqKv(),
                    point.problem().batch(), point.problem().heads(), new BlockSize(point.tiles().blockQ(), point.tiles().blockKv()),
                    point.mask());
            ConfigWriter.write(config, configFile);
            Path base = results == null ? Path.of("").toAbsolutePath() : results.getParent();
            try {
                AtomicFiles.write(file, out -> flex.write(layout, out));
            } catch (IllegalArgumentException e) {
                err.println("saw bench: note: row " + row + " has no flex layout file (" + e.getMessage() + "); it names "
                        + configFile.getFileName() + ", from which FlexAttention's create_block_mask builds the block mask");
                return base.relativize(configFile).toString();
            }
            return base.relativize(file).toString();
        };
    }

    private Path layoutFolder() {
        Path dir;
        try {
            dir = Path.of(exportFlex).toAbsolutePath();
            Files.createDirectories(dir);
        } catch (InvalidPathException | IOException e) {
            throw new BadInput("--export-flex: cannot use the folder '" + exportFlex + "' (" + e.getMessage() + ")");
        }
        return dir;
    }

    private JsonNode tree(MaskConfig config) {
        if (specName.startsWith(SpecLoader.PRESET_PREFIX) || !MaskSpec.isConfig(specName)) {
            return Sweep.tree(config);
        }
        try {
            // the file as written, so --vary pointers address what the user sees; SpecLoader has checked it already
            return new ObjectMapper().readTree(Path.of(specName).toFile());
        } catch (IOException e) {
            throw new BadInput(specName + ": cannot be read again (" + e.getMessage() + ")");
        }
    }

    private List<Vary> parseVary() {
        List<Vary> out = new ArrayList<>();
        for (String v : vary) {
            try {
                out.add(Vary.parse(v));
            } catch (IllegalArgumentException e) {
                throw new BadInput(e.getMessage());
            }
        }
        return out;
    }

    private List<KernelTiles> tiles(MaskConfig config) {
        if (blocks.isEmpty()) {
            return List.of(new KernelTiles(config.block().q(), config.block().kv()));
        }
        List<KernelTiles> out = new ArrayList<>();
        for (String b : blocks) {
            try {
                out.add(KernelTiles.parse(b));
            } catch (IllegalArgumentException e) {
                throw new BadInput("--block: " + e.getMessage());
            }
        }
        return out;
    }

    /**
     * Standard output for {@code --out -} that fails loudly: a PrintWriter hides write errors, and a remote run whose
     * connection dropped must stop at its next row instead of timing the rest of the sweep for nobody.
     */
    private static final class StdoutRows extends java.io.Writer {
        private final PrintWriter out;

        StdoutRows(PrintWriter out) {
            this.out = out;
        }

        @Override
        public void write(char[] buf, int off, int len) {
            out.write(buf, off, len);
        }

        @Override
        public void flush() throws IOException {
            if (out.checkError()) {
                throw new IOException("standard output was closed (the connection that read the rows is gone)");
            }
        }

        @Override
        public void close() {
            out.flush();
        }
    }

    static Path outputFile(String option, String name) {
        Path file;
        try {
            file = Path.of(name).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new BadInput(option + ": '" + name + "' is not a valid file path");
        }
        if (Files.isDirectory(file)) {
            throw new BadInput(option + ": " + name + " is a folder; give a file name");
        }
        if (file.getParent() != null && !Files.isDirectory(file.getParent())) {
            throw new BadInput(option + ": the folder " + file.getParent() + " does not exist");
        }
        return file;
    }
}
