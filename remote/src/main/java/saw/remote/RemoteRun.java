package saw.remote;

import java.io.BufferedReader;
import java.io.IOException;

/**
 * A saw command running on the remote. Its output lines arrive on two reader threads; {@link #cancel()} stops it
 * there (SIGINT, then SIGTERM if it lingers), as Ctrl-C would in a terminal on that machine.
 */
public final class RemoteRun {
    /** Receives the command's lines as they come (on reader threads: stdout and stderr each on its own). */
    public interface Output {
        void out(String line);

        void err(String line);
    }

    /** How it ended: the exit status, or dropped when the connection went before the command did. */
    public record Finished(int status, boolean dropped, boolean cancelled) {}

    private static final String PID_LINE = "saw-remote-pid ";
    private final RemoteSaw saw;
    private final Connection.Running running;
    private final String folder;
    private final RemoteCommand command;
    private final Thread outReader;
    private final Thread errReader;
    private volatile long pid = -1;
    private volatile boolean cancelled;

    RemoteRun(RemoteSaw saw, Connection.Running running, Output output, String folder, RemoteCommand command) {
        this.saw = saw;
        this.running = running;
        this.folder = folder;
        this.command = command;
        this.outReader = reader(RemoteSaw.lines(running.out()), output::out, "saw-remote-out");
        this.errReader = reader(RemoteSaw.lines(running.err()), line -> {
            if (pid < 0 && line.startsWith(PID_LINE)) {
                pid = Long.parseLong(line.substring(PID_LINE.length()).strip());
            } else {
                output.err(line);
            }
        }, "saw-remote-err");
    }

    private static Thread reader(BufferedReader in, java.util.function.Consumer<String> sink, String name) {
        Thread t = new Thread(() -> {
            try {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                // the channel closed: waitFor reports how
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** The remote process id of the run (the prefix command's, when there is one), or -1 before it is known. */
    public long pid() {
        return pid;
    }

    /** Waits for the end; on a normal end copies the output files home and removes the run folder there. */
    public Finished waitFor() throws RemoteException {
        try {
            outReader.join();
            errReader.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int status = running.waitFor();
        // No exit status means the end of the command never arrived: the connection went, even when the session has
        // not noticed yet (JSch closes the channel before it marks the session down).
        boolean dropped = status < 0 && !cancelled;
        if (!dropped) {
            saw.fetchOutputs(folder, command);
        }
        return new Finished(status, dropped, cancelled);
    }

    /** Stops the run there: SIGINT, then SIGTERM after 5 s if it is still alive. Safe to call more than once. */
    public void cancel() {
        cancelled = true;
        long p = pid;
        if (p <= 0) {
            running.channel().disconnect();
            return;
        }
        saw.signal(p, "INT");
        for (int i = 0; i < 50 && saw.alive(p); i++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (saw.alive(p)) {
            saw.signal(p, "TERM");
        }
    }
}
