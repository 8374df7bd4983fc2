package saw.ui.remote;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javafx.concurrent.Task;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.BadResultsFile;
import saw.engine.bench.BenchEnvironment;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.engine.bench.Sweep;
import saw.engine.bench.SweepRunner;
import saw.engine.bench.Vary;
import saw.remote.HostKeyPrompt;
import saw.remote.Pack;
import saw.remote.RemoteCommand;
import saw.remote.RemoteException;
import saw.remote.RemoteRun;
import saw.remote.RemoteSaw;
import saw.remote.SshSetup;
import saw.remote.Target;

/**
 * The run panel's sweep on a remote target: {@code saw bench --out -} run by the pack there on its GPU, with the
 * rows read back as they finish and handed to {@code rows} (on this task's reader thread). Cancel stops the run
 * there. The host key must already be trusted (the target dialog does that); an unknown one stops with its message.
 */
public final class RemoteSweep extends Task<SweepRunner.Outcome> {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The backend used there: the server's GPU; {@code -Dsaw.remote.backend=cpu} runs on its CPU (for servers without one, and the screenshots). */
    private static final String BACKEND = System.getProperty("saw.remote.backend", "gpu");
    private final Target target;
    private final Sweep sweep;
    private final SweepRunner.Settings settings;
    private final int points;
    private final Consumer<BenchRow> rows;
    private final Consumer<BenchEnvironment> environment;
    private final Runnable ended;

    /** {@code ended} runs on this task's thread once the run there is over (also after Cancel, which returns at once). */
    public RemoteSweep(Target target, Sweep sweep, SweepRunner.Settings settings, int points, Consumer<BenchRow> rows,
            Consumer<BenchEnvironment> environment, Runnable ended) {
        this.target = target;
        this.sweep = sweep;
        this.settings = settings;
        this.points = points;
        this.rows = rows;
        this.environment = environment;
        this.ended = ended;
    }

    @Override
    protected SweepRunner.Outcome call() throws Exception {
        Path config = Files.createTempFile("saw-remote-", ".json");
        try {
            JSON.writeValue(config.toFile(), sweep.config());
            updateMessage("Connecting to " + target + "\u2026");
            try (RemoteSaw saw = RemoteSaw.connect(target, SshSetup.user(), HostKeyPrompt.REFUSE, null)) {
                updateMessage("Checking saw's pack on " + target + "\u2026");
                Optional<Path> folder = Pack.locate();
                saw.install(folder.isPresent() ? Optional.of(Pack.of(folder.get())) : Optional.empty());
                return stream(saw, config);
            }
        } catch (RemoteException e) {
            throw new IllegalStateException(e.getMessage()
                    + (e.kind() == RemoteException.Kind.UNKNOWN_HOST_KEY ? " (open Run \u203a Remote targets\u2026 to check and trust its key)" : ""), e);
        } finally {
            Files.deleteIfExists(config);
            ended.run();
        }
    }

    private SweepRunner.Outcome stream(RemoteSaw saw, Path config) throws RemoteException {
        AtomicInteger received = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        long start = System.nanoTime();
        String[] device = {target.toString()};
        String[] lastError = {""};
        String[] bad = {null};
        RemoteRun run = saw.start(RemoteCommand.of(benchArgs(sweep, settings, config), Set.of("--out")), new RemoteRun.Output() {
            private boolean header = true;
            private int line;

            @Override
            public void out(String text) {
                line++;
                try {
                    if (header) {
                        header = false;
                        BenchEnvironment env = ResultsFile.parseHeader(text, "the remote results line 1");
                        device[0] = (env.gpu().isEmpty() ? env.device() : env.gpu()) + " on " + target;
                        environment.accept(env);
                        updateMessage("Running on " + device[0] + with() + " (0 of " + points + ")");
                        return;
                    }
                    BenchRow row = ResultsFile.parseRow(text, "the remote results line " + line);
                    rows.accept(row);
                    if (!row.ok()) {
                        failed.incrementAndGet();
                    }
                    int done = received.incrementAndGet();
                    updateProgress(done, points);
                    long eta = new SweepRunner.Progress(done, points, System.nanoTime() - start).etaNanos();
                    updateMessage(done + " of " + points + " points done on " + device[0] + with()
                            + (eta < 0 ? "" : String.format(Locale.ROOT, ", about %.0f s left", eta / 1e9)));
                } catch (BadResultsFile e) {
                    bad[0] = e.getMessage();
                }
            }

            @Override
            public void err(String text) {
                if (!text.startsWith("[") && !text.startsWith("saw bench: ")) {
                    lastError[0] = text;
                }
            }
        });
        Thread stopper = new Thread(() -> {
            while (!isDone()) {
                if (isCancelled()) {
                    run.cancel();
                    return;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "saw-remote-cancel");
        stopper.setDaemon(true);
        stopper.start();
        RemoteRun.Finished f = run.waitFor();
        stopper.interrupt();
        if (bad[0] != null) {
            throw new IllegalStateException("the rows from " + target + " could not be read: " + bad[0]);
        }
        if (f.dropped()) {
            throw new IllegalStateException("the connection to " + target + " dropped after " + received.get() + " of " + points
                    + " rows; they are kept here");
        }
        if (f.status() != 0 && !f.cancelled()) {
            throw new IllegalStateException("saw bench on " + target + " ended with exit " + f.status()
                    + (lastError[0].isEmpty() ? "" : ": " + lastError[0]));
        }
        return new SweepRunner.Outcome(received.get(), failed.get(), f.cancelled());
    }

    private String with() {
        return settings.sinks() ? " with learned sinks" : "";
    }

    /** The {@code saw bench} command line of a sweep of the config in {@code config}, rows to standard output. */
    public static List<String> benchArgs(Sweep s, SweepRunner.Settings settings, Path config) {
        List<String> a = new ArrayList<>(List.of("bench", config.toString()));
        a.add("--block");
        a.add(s.tiles().stream().map(KernelTiles::toString).collect(Collectors.joining(",")));
        a.add("--pass");
        a.add(s.passes().stream().map(Pass::label).collect(Collectors.joining(",")));
        a.add("--head-dim");
        a.add(s.headDims().stream().map(String::valueOf).collect(Collectors.joining(",")));
        a.add("--dtype");
        a.add(s.dtype().label());
        option(a, "--batch", s.batch());
        option(a, "--heads", s.heads());
        option(a, "--kv-heads", s.kvHeads());
        if (!s.seqs().isEmpty()) {
            a.add("--seq");
            a.add(s.seqs().stream().map(String::valueOf).collect(Collectors.joining(",")));
        }
        if (!s.densities().isEmpty()) {
            a.add("--density");
            a.add(s.densities().stream().map(RemoteSweep::number).collect(Collectors.joining(",")));
        }
        for (Vary v : s.vary()) {
            a.add("--vary");
            a.add(v.pointer() + "=" + v.values().stream().map(RemoteSweep::number).collect(Collectors.joining(",")));
        }
        if (settings.sinks()) {
            a.add("--sinks");
        }
        a.addAll(List.of("--seed", Long.toString(s.seed()), "--reps", Integer.toString(settings.reps()), "--warmup",
                Integer.toString(settings.warmup()), "--backend", BACKEND, "--out", "-"));
        return a;
    }

    private static void option(List<String> a, String name, int value) {
        if (value > 0) {
            a.add(name);
            a.add(Integer.toString(value));
        }
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

}
