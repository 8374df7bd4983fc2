package saw.app.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.bench.SweepRunner;
import saw.engine.config.ConfigException;
import saw.engine.config.MaskConfig;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuException;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.MaskChecks;
import saw.engine.tune.GpuCandidates;
import saw.engine.tune.TuneCache;
import saw.engine.tune.TuneResult;
import saw.engine.tune.Tuner;

/** {@code saw tune}: times every kernel candidate for a mask on the GPU and remembers the fastest per pass. */
@Command(name = "tune", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Times every tile size and kernel family for SPEC on the GPU, forward and backward separately, "
                + "and stores the winners in the tune cache ($XDG_CACHE_HOME/saw/tune.json), where saw bench and saw verify "
                + "find them.", "Exit codes: 0 ok, 2 bad input, 1 GPU failure."})
final class TuneCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RemoteOptions remote;

    @Parameters(index = "0", arity = "0..1", paramLabel = "SPEC",
            description = MaskSpec.DESCRIPTION + " (not needed with --clear)")
    String specName;

    @Option(names = "--seq", paramLabel = "N", description = "query and key tokens (default: the config's; a one-line mask needs it)")
    Integer seq;

    @Option(names = "--batch", paramLabel = "B", description = "default: the config's")
    Integer batch;

    @Option(names = "--heads", paramLabel = "H", description = "default: the config's")
    Integer heads;

    @Option(names = "--kv-heads", paramLabel = "HKV", description = "default: H")
    Integer kvHeads;

    @Option(names = "--head-dim", paramLabel = "D", defaultValue = "128")
    int headDim;

    @Option(names = "--dtype", paramLabel = "T", defaultValue = "bf16", description = "bf16 or fp16")
    String dtype;

    @Option(names = "--softcap", defaultValue = "0", description = "logit softcap (0 = off)")
    double softcap;

    @Option(names = "--sinks", description = "tune for runs with sink logits (a separate cache entry)")
    boolean sinks;

    @Option(names = "--passes", split = ",", paramLabel = "P", defaultValue = "fwd,bwd", description = "fwd, bwd or fwd,bwd")
    List<String> passes;

    @Option(names = "--seed", defaultValue = "0")
    long seed;

    @Option(names = "--no-cache", description = "time and print, but neither read nor write the cache")
    boolean noCache;

    @Option(names = "--clear", description = "delete the tune cache and exit")
    boolean clear;

    @Override
    public Integer call() throws ConfigException, IOException {
        if (remote.active()) {
            return remote.runElsewhere(spec);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        TuneCache cache = new TuneCache(TuneCache.defaultFile(), w -> err.println("saw tune: warning: " + w));
        if (clear) {
            out.println(cache.clear() ? "removed " + cache.file() : "no tune cache at " + cache.file());
            return SawCli.OK;
        }
        if (specName == null) {
            throw new BadInput("SPEC is required (a config file, preset:NAME or one-line mask) unless --clear is given");
        }
        MaskConfig config = MaskSpec.config(specName, seq);
        AttentionProblem p = problem(config);
        Dims dims = new Dims(p.seqQ(), p.seqKv(), p.batch(), p.heads());
        List<MaskChecks.Problem> problems = MaskChecks.check(config.mask(), dims);
        if (!problems.isEmpty()) {
            throw new BadInput(specName + ": " + problems.get(0));
        }
        List<Pass> which = OptionValues.passes("--passes", passes);
        BoundMask mask = BoundMask.bind(config.mask(), dims);
        try (GpuBackend gpu = GpuBackend.open()) {
            GpuCandidates runner = new GpuCandidates(gpu);
            for (Pass pass : which) {
                ProgressBar bar = new ProgressBar(err, System.console() != null);
                int total = runner.candidates(p, pass).size();
                long t0 = System.nanoTime();
                TuneResult r;
                try {
                    r = Tuner.tune(runner, p, mask, pass, sinks, seed, x -> bar.update(new SweepRunner.Progress(
                            (int) Math.round(x * total), total, System.nanoTime() - t0), "tune " + pass.label()), () -> false);
                } catch (IllegalArgumentException e) {
                    throw new BadInput(e.getMessage());
                } finally {
                    bar.finish();
                }
                print(out, p, pass, r);
                if (!noCache) {
                    cache.put(r.key(), r.choice(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()));
                    out.println("stored in " + cache.file());
                }
            }
        } catch (GpuException e) {
            err.println("saw tune: " + e.getMessage());
            return SawCli.INTERNAL_ERROR;
        }
        return SawCli.OK;
    }

    private AttentionProblem problem(MaskConfig c) {
        DType type = OptionValues.dtype(dtype);
        int s = seq == null ? c.seqLenQ() : seq;
        int skv = seq == null ? c.seqLenKv() : seq;
        int h = heads == null ? c.heads() : heads;
        try {
            return new AttentionProblem(batch == null ? c.batch() : batch, h, kvHeads == null ? h : kvHeads, s, skv, headDim, type,
                    1.0 / Math.sqrt(headDim), softcap);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
    }

    private void print(PrintWriter out, AttentionProblem p, Pass pass, TuneResult r) {
        out.printf(Locale.ROOT, "saw tune %s %s  B=%d H=%d Hkv=%d S=%d D=%d %s  mask signature %s%n", specName, pass.label(),
                p.batch(), p.heads(), p.kvHeads(), p.seqQ(), p.headDim(), p.dtype().label(), r.key().signature());
        out.printf("%-18s %-40s %10s %10s %10s%n", "candidate", "kernel", "median ms", "p10 ms", "p90 ms");
        for (TuneResult.Row row : r.rows()) {
            out.printf(Locale.ROOT, "%-18s %-40s %10.4f %10.4f %10.4f%s%n", row.candidate(), row.kernel(),
                    row.timing().medianMs(), row.timing().p10Ms(), row.timing().p90Ms(),
                    row == r.defaultRow() ? "  (default)" : "");
        }
        for (String s : r.skipped()) {
            out.println("skipped " + s);
        }
        if (r.alternateRuns() > 0) {
            out.printf(Locale.ROOT, "the two fastest were within %.0f%%: timed again in alternating blocks, %d runs each; "
                    + "those medians decide%n", 100 * Tuner.CLOSE, r.alternateRuns());
        }
        double win = r.winner().timing().medianMs();
        out.printf(Locale.ROOT, "winner %s: %.4f ms, %.3fx the runner-up (%s), %s; tune took %.1f s%n", r.winner().candidate(), win,
                r.runnerUp().timing().medianMs() / win, r.runnerUp().candidate(),
                r.defaultRow() == null ? "the default did not run"
                        : String.format(Locale.ROOT, "%.3fx the default (%s)", r.defaultRow().timing().medianMs() / win,
                                r.defaultRow().candidate()), r.seconds());
    }
}
