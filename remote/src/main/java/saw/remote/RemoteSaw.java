package saw.remote;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import saw.engine.io.AtomicFiles;

/**
 * saw on a remote machine, over one SSH connection: makes sure its GPU pack is there (uploading it once per
 * version, checked by SHA-256, under ~/.cache/saw), then runs saw command lines there under the target's command
 * prefix, streaming their output back line by line.
 */
public final class RemoteSaw implements AutoCloseable {
    private final Connection connection;
    private final Target target;
    private String packDir;

    private RemoteSaw(Connection connection, Target target) {
        this.connection = connection;
        this.target = target;
    }

    /**
     * Connects with the user's SSH setup. An unknown host key goes to {@code prompt}; {@code passphrase} answers a
     * key file's passphrase question (null: keys with a passphrase are skipped) and is not kept.
     */
    public static RemoteSaw connect(Target target, SshSetup setup, HostKeyPrompt prompt, Function<String, String> passphrase)
            throws RemoteException {
        return new RemoteSaw(Connection.open(target, setup, prompt, passphrase), target);
    }

    public Target target() {
        return target;
    }

    /** How the pack got there. */
    public record Installed(String folder, boolean uploaded, long bytes) {}

    /**
     * Makes sure a pack is on the remote: {@code pack}'s folder when its checksum file matches, else uploads and
     * checks it; with no local pack, the newest pack already there.
     */
    public Installed install(Optional<Pack> pack) throws RemoteException {
        if (pack.isEmpty()) {
            Connection.Result r = connection.run(Shell.CACHE + "; for p in $(ls -1t \"$C\" 2>/dev/null | grep '^pack-'); do"
                    + " if [ -f \"$C/$p/.saw-pack\" ] && [ -x \"$C/$p/saw\" ]; then echo \"$p\"; break; fi; done", null);
            String found = r.outText().strip();
            if (r.status() != 0 || found.isEmpty()) {
                throw new RemoteException(RemoteException.Kind.NO_SAW, connection.name() + " has no saw pack under ~/.cache/saw"
                        + " and there is no pack here to upload (build one with bench/gpu-pack.sh app/target/" + Pack.FOLDER_BESIDE_JAR
                        + ", or set SAW_PACK to its folder)");
            }
            packDir = found;
            return new Installed(found, false, 0);
        }
        Pack p = pack.get();
        String dir = "\"$C\"/" + p.stamp();
        Connection.Result check = connection.run(Shell.CACHE + "; if [ \"$(cat " + dir + "/.saw-pack 2>/dev/null)\" = "
                + p.sha256() + " ] && [ -x " + dir + "/saw ]; then echo reuse; else echo upload; fi", null);
        if (check.status() != 0) {
            throw failure("checking the pack", check);
        }
        packDir = p.stamp();
        if (check.outText().strip().equals("reuse")) {
            return new Installed(p.stamp(), false, 0);
        }
        String staging = "\"$C\"/upload-" + p.sha256().substring(0, 16);
        // every step checks its own status: `set -e` is ignored inside a command list whose status is tested
        String script = Shell.CACHE + "; S=" + staging + "; P=" + dir + ";"
                + " fail() { s=$?; rm -rf \"$S\"; exit $s; };"
                + " mkdir -p \"$S\" || fail; cat > \"$S/pack.tar.gz\" || fail;"
                + " sum=$(sha256sum < \"$S/pack.tar.gz\") || fail; sum=${sum%% *};"
                + " if [ \"$sum\" != " + p.sha256() + " ]; then echo \"saw-remote: the upload's checksum is $sum, not "
                + p.sha256() + "\" >&2; rm -rf \"$S\"; exit 3; fi;"
                + " rm -rf \"$S/pack\"; mkdir \"$S/pack\" && tar -xzf \"$S/pack.tar.gz\" -C \"$S/pack\" || fail;"
                + " echo " + p.sha256() + " > \"$S/pack/.saw-pack\" || fail;"
                + " rm -rf \"$P\"; mv \"$S/pack\" \"$P\" || fail; rm -rf \"$S\";"
                + " for old in \"$C\"/pack-*; do [ \"$old\" = \"$C/" + p.stamp() + "\" ] || rm -rf \"$old\"; done";
        Connection.Result up = connection.run(script, new ByteArrayInputStream(p.archive()));
        if (up.status() != 0) {
            throw failure("uploading the " + mib(p.size()) + " pack to ~/.cache/saw/" + p.stamp(), up);
        }
        return new Installed(p.stamp(), true, p.size());
    }

    /** {@code saw env} there, under the command prefix: its output. */
    public String env() throws RemoteException {
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        RemoteRun run = start(new RemoteCommand(java.util.List.of("env"), Map.of(), Map.of()), new RemoteRun.Output() {
            @Override
            public void out(String line) {
                out.append(line).append('\n');
            }

            @Override
            public void err(String line) {
                err.append(line).append('\n');
            }
        });
        RemoteRun.Finished f = run.waitFor();
        if (f.dropped()) {
            throw new RemoteException(RemoteException.Kind.DROPPED, connection.name() + ": the connection dropped during saw env");
        }
        if (f.status() == 127 || f.status() == 126) {
            throw new RemoteException(RemoteException.Kind.NO_SAW, connection.name() + ": saw could not start there: " + firstLine(err.toString()));
        }
        return out.toString();
    }

    /** The GPU line of {@code saw env} output ("NVIDIA H200 ..."), or "no GPU". */
    public static String gpuOf(String envOutput) {
        String[] lines = envOutput.split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("gpus:")) {
                String rest = lines[i].substring(5).strip();
                if (!rest.isEmpty()) {
                    return rest.equals("none") ? "no GPU" : rest;
                }
                return i + 1 < lines.length ? lines[i + 1].strip() : "no GPU";
            }
        }
        return "no GPU";
    }

    /**
     * Starts a command in a fresh run folder ~/.cache/saw/runs/ID there: uploads its inputs, then runs
     * {@code PREFIX PACK/saw ARGS}. Stdout and stderr lines go to {@code output} as they come.
     */
    public RemoteRun start(RemoteCommand command, RemoteRun.Output output) throws RemoteException {
        if (packDir == null) {
            throw new IllegalStateException("install the pack first");
        }
        byte[] id = new byte[6];
        new SecureRandom().nextBytes(id);
        String run = "\"$C\"/runs/" + HexFormat.of().formatHex(id);
        Connection.Result mk = connection.run(Shell.CACHE + "; mkdir -p " + run + "/in " + run + "/out", null);
        if (mk.status() != 0) {
            throw failure("making the run folder", mk);
        }
        for (Map.Entry<Path, String> in : command.inputs().entrySet()) {
            try (InputStream data = Files.newInputStream(in.getKey())) {
                Connection.Result r = connection.run(Shell.CACHE + "; cat > " + run + "/" + Shell.quote(in.getValue()), data);
                if (r.status() != 0) {
                    throw failure("uploading " + in.getKey().getFileName(), r);
                }
            } catch (IOException e) {
                throw new RemoteException(RemoteException.Kind.FAILED, "cannot read " + in.getKey() + ": " + e.getMessage(), e);
            }
        }
        String line = Shell.CACHE + "; cd " + run + " && echo \"saw-remote-pid $$\" >&2 && exec "
                + (target.prefix().isEmpty() ? "" : target.prefix() + " ") + "\"$C\"/" + packDir + "/saw " + Shell.quoteAll(command.args());
        Connection.Running r = connection.start(line, null);
        return new RemoteRun(this, r, output, run, command);
    }

    /** Sends a signal to a process there (the run's shell became saw or the prefix command, so it has the same id). */
    void signal(long pid, String signal) {
        try {
            connection.run("kill -" + signal + " " + pid + " 2>/dev/null; true", null);
        } catch (RemoteException e) {
            // the connection is gone: there is nothing left to stop from here
        }
    }

    boolean alive(long pid) {
        try {
            return connection.run("kill -0 " + pid + " 2>/dev/null", null).status() == 0;
        } catch (RemoteException e) {
            return false;
        }
    }

    /** Copies the run's output files home (atomically) and removes its folder there. */
    void fetchOutputs(String run, RemoteCommand command) throws RemoteException {
        for (Map.Entry<String, Path> out : command.outputs().entrySet()) {
            Connection.Result r = connection.run(Shell.CACHE + "; cat " + run + "/" + Shell.quote(out.getKey()), null);
            if (r.status() != 0) {
                continue; // the command did not write it (it failed and said why)
            }
            try {
                AtomicFiles.write(out.getValue(), o -> o.write(r.out()));
            } catch (IOException e) {
                throw new RemoteException(RemoteException.Kind.FAILED, "cannot write " + out.getValue() + ": " + e.getMessage(), e);
            }
        }
        removeRun(run);
    }

    void removeRun(String run) {
        try {
            connection.run(Shell.CACHE + "; rm -rf " + run, null);
        } catch (RemoteException e) {
            // a run folder left behind costs a few kB; the next runs do not depend on it
        }
    }

    String name() {
        return connection.name();
    }

    private RemoteException failure(String what, Connection.Result r) {
        String err = r.err();
        if (r.status() < 0) {
            return new RemoteException(RemoteException.Kind.DROPPED, connection.name() + ": the connection dropped while " + what);
        }
        if (err.contains("No space left on device") || err.contains("Disk quota exceeded")) {
            return new RemoteException(RemoteException.Kind.DISK_FULL, connection.name() + ": the disk is full there, " + what
                    + " failed (" + firstLine(err.substring(Math.max(0, err.indexOf("No space") < 0 ? 0 : err.lastIndexOf('\n', err.indexOf("No space")) + 1)))
                    + "); free some space under ~/.cache/saw there");
        }
        return new RemoteException(RemoteException.Kind.FAILED, connection.name() + ": " + what + " failed (exit " + r.status() + "): "
                + firstLine(err.isBlank() ? r.outText() : err));
    }

    static String firstLine(String text) {
        String t = text.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    private static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    static BufferedReader lines(InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        connection.close();
    }
}
