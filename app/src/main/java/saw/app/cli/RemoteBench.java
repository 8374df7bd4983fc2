package saw.app.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import saw.engine.bench.BadResultsFile;
import saw.engine.bench.BenchEnvironment;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsCsv;
import saw.engine.bench.ResultsFile;
import saw.engine.bench.ResultsWriter;
import saw.engine.bench.SweepPoint;
import saw.engine.bench.SweepRunner;
import saw.remote.RemoteCommand;
import saw.remote.RemoteException;
import saw.remote.RemoteRun;
import saw.remote.RemoteSaw;

/**
 * {@code saw bench --remote}: the same sweep, run by the saw pack on the server with its results on standard output,
 * read back here row by row into the local results file (and CSV), with the progress bar and ETA drawn here.
 * Every row received is written and flushed at once, so a dropped connection or Ctrl-C keeps them all, and
 * {@code --resume} asks the server for the rest only ({@code --first-row}).
 */
final class RemoteBench {
    private static final Pattern REMOTE_PROGRESS = Pattern.compile("^\\[[#.]+\\] .*");
    private final CommandSpec spec;
    private final RemoteOptions remote;
    private final List<SweepPoint> points;
    private final int first;
    private final boolean resume;
    private final Path outFile;
    private final Path csvFile;

    RemoteBench(CommandSpec spec, RemoteOptions remote, List<SweepPoint> points, int first, boolean resume, Path outFile, Path csvFile) {
        this.spec = spec;
        this.remote = remote;
        this.points = points;
        this.first = first;
        this.resume = resume;
        this.outFile = outFile;
        this.csvFile = csvFile;
    }

    int run() {
        PrintWriter err = spec.commandLine().getErr();
        if (outFile == null) {
            throw new BadInput("--out: give a local file for a remote run (the rows stream back into it)");
        }
        List<String> args = RemoteOptions.localArgs(spec, Set.of("--out", "--csv", "--resume", "--first-row"));
        args.add("--out");
        args.add("-");
        args.add("--first-row");
        args.add(Integer.toString(first));
        RemoteCommand command;
        try {
            command = RemoteCommand.of(args, Set.of("--out"));
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        int total = points.size() - first;
        AtomicInteger received = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        ProgressBar bar = new ProgressBar(err, System.console() != null);
        Stream stream = new Stream(err, bar, total, received, failed);
        try (RemoteSaw saw = remote.connect(err, "saw bench")) {
            err.println("saw bench: " + total + " points" + (first > 0 ? " (from row " + first + ")" : "") + " on " + saw.target()
                    + " -> " + outFile);
            err.flush();
            RemoteRun run = saw.start(command, stream);
            RemoteRun.Finished f;
            try {
                f = RemoteOptions.whileStoppable(run, () -> {
                    bar.finish();
                    err.println("saw bench: stopped; the run on " + saw.target() + " was stopped too; " + received.get()
                            + " rows kept in " + outFile + " (--resume continues)");
                    err.flush();
                });
            } finally {
                stream.close();
            }
            bar.finish();
            if (stream.failure != null) {
                err.println("saw bench: " + stream.failure);
                return SawCli.INTERNAL_ERROR;
            }
            if (f.dropped()) {
                err.println("saw bench: the connection to " + saw.target() + " dropped after " + received.get() + " of " + total
                        + " rows; they are kept in " + outFile + "; run the same command with --resume to continue");
                return RemoteOptions.DROPPED;
            }
            if (f.cancelled()) {
                return SawCli.INTERNAL_ERROR;
            }
            if (f.status() != 0) {
                err.println("saw bench: the run on " + saw.target() + " ended with exit " + f.status() + "; " + received.get()
                        + " rows kept in " + outFile);
                return f.status();
            }
            err.println("saw bench: " + received.get() + " rows (" + failed.get() + " failed) written to " + outFile
                    + (stream.device.isEmpty() ? "" : " (measured on " + stream.device + ")"));
            return SawCli.OK;
        } catch (RemoteException e) {
            bar.finish();
            err.println("saw bench: " + e.getMessage());
            return e.kind() == RemoteException.Kind.DROPPED ? RemoteOptions.DROPPED : SawCli.BAD_INPUT;
        } finally {
            err.flush();
        }
    }

    /** The server's standard output: the header, then one row per line, each written here as it arrives. */
    private final class Stream implements RemoteRun.Output {
        private final PrintWriter err;
        private final ProgressBar bar;
        private final int total;
        private final AtomicInteger received;
        private final AtomicInteger failed;
        private final long start = System.nanoTime();
        private ResultsWriter results;
        private ResultsCsv table;
        private int line;
        volatile String failure;
        volatile String device = "";

        Stream(PrintWriter err, ProgressBar bar, int total, AtomicInteger received, AtomicInteger failed) {
            this.err = err;
            this.bar = bar;
            this.total = total;
            this.received = received;
            this.failed = failed;
        }

        @Override
        public synchronized void out(String text) {
            line++;
            if (failure != null) {
                return;
            }
            String where = "the remote results line " + line;
            try {
                if (results == null) {
                    BenchEnvironment env = ResultsFile.parseHeader(text, where);
                    device = env.device() + (env.gpu().isEmpty() ? "" : ", driver " + env.driver());
                    results = resume ? ResultsWriter.append(outFile) : ResultsWriter.create(outFile, env);
                    table = csvFile == null ? null : csv(csvFile, outFile, resume);
                    bar.update(progress(), "on " + env.device());
                    return;
                }
                BenchRow row = ResultsFile.parseRow(text, where);
                results.write(row);
                if (table != null) {
                    table.accept(row);
                }
                received.incrementAndGet();
                if (!row.ok()) {
                    failed.incrementAndGet();
                    bar.finish();
                    synchronized (err) {
                        err.println("saw bench: point " + row.index() + " " + points.get(row.index()).label() + ": " + row.status());
                    }
                }
                bar.update(progress(), row.index() + 1 < points.size() ? points.get(row.index() + 1).label() : "");
            } catch (BadResultsFile | IOException | UncheckedIOException | IndexOutOfBoundsException e) {
                failure = "cannot take in the remote results: " + e.getMessage();
            }
        }

        private SweepRunner.Progress progress() {
            return new SweepRunner.Progress(received.get(), total, System.nanoTime() - start);
        }

        @Override
        public void err(String text) {
            if (REMOTE_PROGRESS.matcher(text).matches() || text.startsWith("saw bench: ")) {
                return; // the remote's own bar and summary: this side draws its own from the rows
            }
            synchronized (err) {
                bar.finish();
                err.println("remote: " + text);
                err.flush();
            }
        }

        synchronized void close() {
            try {
                if (results != null) {
                    results.close();
                }
                if (table != null) {
                    table.close();
                }
            } catch (IOException e) {
                failure = "cannot close " + outFile + ": " + e.getMessage();
            }
        }
    }

    /**
     * The row to start a resumed sweep at: the number of rows in {@code file}, after checking that they are this
     * sweep's first rows (same config, sizes, tile and pass, in order).
     */
    static int resumeFrom(Path file, List<SweepPoint> points, PrintWriter err) {
        if (file == null) {
            throw new BadInput("--resume needs --out FILE, the results file to continue");
        }
        if (!Files.isRegularFile(file)) {
            throw new BadInput("--resume: " + file + " does not exist; run without --resume to start the sweep");
        }
        ResultsFile kept;
        try {
            kept = ResultsFile.read(file);
        } catch (BadResultsFile e) {
            throw new BadInput("--resume: " + e.getMessage());
        }
        kept.truncation().ifPresent(t -> err.println("saw bench: note: " + t));
        List<BenchRow> rows = kept.rows();
        for (int i = 0; i < rows.size(); i++) {
            BenchRow r = rows.get(i);
            if (r.index() != i || i >= points.size() || !matches(r, points.get(i))) {
                throw new BadInput("--resume: row " + i + " of " + file + " is not row " + i + " of this sweep"
                        + (i < points.size() ? " (" + points.get(i).label() + ")" : "") + "; resume with the same options, or use a new --out file");
            }
        }
        return rows.size();
    }

    private static boolean matches(BenchRow r, SweepPoint p) {
        return r.config().equals(p.config()) && Double.compare(r.density(), p.density()) == 0 && r.tiles().equals(p.tiles()) && r.pass() == p.pass()
                && r.problem().seqQ() == p.problem().seqQ() && r.problem().seqKv() == p.problem().seqKv()
                && r.problem().headDim() == p.problem().headDim() && r.problem().heads() == p.problem().heads()
                && r.problem().batch() == p.problem().batch() && r.varied().equals(p.varied());
    }

    /** The CSV of a sweep; on resume it is written again from the rows kept, then gets the new ones. */
    static ResultsCsv csv(Path csvFile, Path outFile, boolean resume) throws IOException {
        ResultsCsv table = ResultsCsv.create(csvFile);
        if (resume && outFile != null) {
            try {
                for (BenchRow r : ResultsFile.read(outFile).rows()) {
                    table.accept(r);
                }
            } catch (BadResultsFile e) {
                throw new IOException(e.getMessage(), e);
            }
        }
        return table;
    }

}
