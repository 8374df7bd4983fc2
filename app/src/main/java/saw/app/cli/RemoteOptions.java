package saw.app.cli;

import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import saw.remote.HostKeyPrompt;
import saw.remote.Pack;
import saw.remote.RemoteCommand;
import saw.remote.RemoteException;
import saw.remote.RemoteRun;
import saw.remote.RemoteSaw;
import saw.remote.SshSetup;
import saw.remote.Target;
import saw.remote.TargetStore;

/**
 * {@code --remote TARGET} and its companions, mixed into every command that can run on a GPU server. With
 * {@link #runElsewhere} any saw command line runs there as it would here: files it names are uploaded, files it
 * writes come back, its output streams to this terminal, Ctrl-C stops it there too.
 */
final class RemoteOptions {
    /** Exit code when the connection dropped mid-run (the rows received are kept). */
    static final int DROPPED = 1;
    private static final Set<String> OWN_OPTIONS = Set.of("--remote", "--remote-prefix", "--accept-host-key");

    @Option(names = "--remote", paramLabel = "TARGET",
            description = "run on a GPU server over SSH: user@host[:port], a Host alias of ~/.ssh/config, or a target saved in the window")
    String target;

    @Option(names = "--remote-prefix", paramLabel = "CMD",
            description = "start saw there under this command, e.g. 'srun -p gpu --gres=gpu:1' (default: the saved target's, else none)")
    String prefix;

    @Option(names = "--accept-host-key", paramLabel = "SHA256:...",
            description = "on first contact, trust the server's host key if it has exactly this fingerprint (it is added to known_hosts)")
    String acceptHostKey;

    /** Test hook: the SSH setup to use instead of ~/.ssh (tests point it at throwaway keys). */
    static volatile SshSetup setupOverride;

    boolean active() {
        return target != null;
    }

    /** The command line as typed, from the command's own name on, without the remote options. */
    static List<String> localArgs(CommandSpec spec, Set<String> drop) {
        List<String> original = spec.commandLine().getParseResult().originalArgs();
        List<String> path = Arrays.asList(spec.qualifiedName().split(" "));
        List<String> names = path.subList(1, path.size());
        int start = 0;
        for (int i = 0, n = 0; i < original.size() && n < names.size(); i++) {
            if (original.get(i).equals(names.get(n))) {
                n++;
                start = i + 1;
            }
        }
        List<String> out = new ArrayList<>(names);
        for (int i = start; i < original.size(); i++) {
            String a = original.get(i);
            String option = a.startsWith("-") && a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (OWN_OPTIONS.contains(option) || drop.contains(option)) {
                if (option.equals(a) && !FLAGS.contains(option)) {
                    i++; // its value
                }
                continue;
            }
            out.add(a);
        }
        return out;
    }

    /** Options without a value among those callers drop. */
    static final Set<String> FLAGS = Set.of("--resume");

    /** Connects to the target and makes sure saw's pack is there; failures are one line and exit 2. */
    RemoteSaw connect(PrintWriter err, String command) {
        Target t = resolve();
        SshSetup setup = setupOverride != null ? setupOverride : SshSetup.user();
        RemoteSaw saw;
        try {
            saw = RemoteSaw.connect(t, setup, hostKeyPrompt(err, command), passphrasePrompt());
        } catch (RemoteException e) {
            throw new BadInput(e.getMessage() + (e.kind() == RemoteException.Kind.UNKNOWN_HOST_KEY
                    ? " (check the fingerprint with the server's admin, then run again in a terminal or with --accept-host-key)" : ""));
        }
        try {
            Optional<Pack> pack = Optional.empty();
            Optional<java.nio.file.Path> folder = Pack.locate();
            if (folder.isPresent()) {
                pack = Optional.of(Pack.of(folder.get()));
            }
            if (pack.isPresent()) {
                err.println(command + ": pack " + pack.get().stamp() + " (commit " + pack.get().commit() + ") for " + t);
                err.flush();
            }
            RemoteSaw.Installed installed = saw.install(pack);
            if (installed.uploaded()) {
                err.println(command + ": uploaded the pack (" + String.format(java.util.Locale.ROOT, "%.1f", installed.bytes() / 1048576.0)
                        + " MiB, SHA-256 checked) to ~/.cache/saw/" + installed.folder() + " on " + t);
            } else {
                err.println(command + ": reusing ~/.cache/saw/" + installed.folder() + " on " + t);
            }
            err.flush();
            return saw;
        } catch (RemoteException e) {
            saw.close();
            throw new BadInput(e.getMessage());
        }
    }

    private Target resolve() {
        try {
            Optional<TargetStore.Saved> saved = TargetStore.user().find(target);
            if (saved.isPresent()) {
                Target t = saved.get().target();
                return prefix == null ? t : t.withPrefix(prefix);
            }
        } catch (IOException e) {
            throw new BadInput("--remote: the saved targets cannot be read: " + e.getMessage());
        }
        try {
            return Target.parse(target, prefix);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--remote: " + e.getMessage());
        }
    }

    private HostKeyPrompt hostKeyPrompt(PrintWriter err, String command) {
        if (acceptHostKey != null) {
            return HostKeyPrompt.fingerprint(acceptHostKey);
        }
        Console console = System.console();
        if (console == null) {
            return HostKeyPrompt.REFUSE;
        }
        return key -> {
            err.println(command + ": " + key.host() + " is not in known_hosts. Its " + key.type() + " key fingerprint is " + key.fingerprint() + ".");
            err.flush();
            String answer = console.readLine("Trust this key and add it to known_hosts? [y/N] ");
            return answer != null && (answer.strip().equalsIgnoreCase("y") || answer.strip().equalsIgnoreCase("yes"));
        };
    }

    private static Function<String, String> passphrasePrompt() {
        Console console = System.console();
        if (console == null) {
            return null;
        }
        return message -> {
            char[] p = console.readPassword("%s: ", message);
            return p == null ? null : new String(p);
        };
    }

    /**
     * Runs the command there and streams its output here; returns its exit status. Ctrl-C stops the remote run
     * before this process ends.
     */
    int runElsewhere(CommandSpec spec) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        RemoteCommand command;
        try {
            command = RemoteCommand.of(localArgs(spec, Set.of()), Set.of());
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        try (RemoteSaw saw = connect(err, name)) {
            RemoteRun run = saw.start(command, new RemoteRun.Output() {
                @Override
                public void out(String line) {
                    synchronized (out) {
                        out.println(line);
                        out.flush();
                    }
                }

                @Override
                public void err(String line) {
                    synchronized (err) {
                        err.println(line);
                        err.flush();
                    }
                }
            });
            RemoteRun.Finished f = whileStoppable(run, () -> {});
            if (f.dropped()) {
                err.println(name + ": the connection to " + saw.target() + " dropped before the command finished");
                return DROPPED;
            }
            return f.status();
        } catch (RemoteException e) {
            err.println(name + ": " + e.getMessage());
            return e.kind() == RemoteException.Kind.DROPPED ? DROPPED : SawCli.BAD_INPUT;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /**
     * Waits for a run with a shutdown hook in place that, on Ctrl-C, stops the run there, waits for this side to
     * take in what it sent, and then runs {@code onStop} (which says what was kept).
     */
    static RemoteRun.Finished whileStoppable(RemoteRun run, Runnable onStop) throws RemoteException {
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            run.cancel();
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            onStop.run();
        }, "saw-remote-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run.waitFor();
        } finally {
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook is running and says what was kept
            }
        }
    }
}
