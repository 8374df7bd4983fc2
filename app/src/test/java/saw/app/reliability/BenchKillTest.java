package saw.app.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.bench.BadResultsFile;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.engine.reliability.ReliabilityLog;

/**
 * A real {@code saw bench --backend cpu} sweep in a child JVM, killed (SIGKILL) at random moments: afterwards the
 * results file is absent (killed before it was created) or parses, and holds every row the sweep reported
 * finished, identical to the rows of an uninterrupted run; at most its last line is cut short.
 */
class BenchKillTest {
    private static final int KILLS = 10;
    /** The JVM takes this long at least to start writing; kills are spread over the rest of the run. */
    private static final long MIN_DELAY_NANOS = 200_000_000L;
    private static final Pattern PROGRESS = Pattern.compile("\\]\\s+(\\d+)/(\\d+)");
    private static final List<String> SWEEP = List.of("bench", "preset:causal", "--seq", "512",
            "--density", "0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1",
            "--block", "64x64,32x32", "--pass", "fwd", "--batch", "1", "--heads", "1", "--head-dim", "32",
            "--backend", "cpu", "--reps", "3", "--warmup", "0");

    @TempDir
    Path dir;

    /** One child run: the results file it left, what it printed, and how long it ran. */
    private record Child(Path results, String err, long nanos, boolean finished) {}

    @Test
    void aSweepKilledAtRandomMomentsLeavesAReadableFileWithEveryFinishedRow() throws Exception {
        Child whole = run("whole", -1);
        assertTrue(whole.finished(), whole.err());
        ResultsFile reference = ResultsFile.read(whole.results());
        assertEquals(40, reference.rows().size(), whole.err());

        long seed = Long.getLong("saw.test.seed", 0x6111L);
        SplittableRandom rnd = new SplittableRandom(seed);
        int absent = 0;
        int cutShort = 0;
        int empty = 0;
        List<Integer> rowsKept = new ArrayList<>();
        for (int k = 0; k < KILLS; k++) {
            long delay = MIN_DELAY_NANOS + (long) (rnd.nextDouble() * whole.nanos());
            Child c = run("kill-" + k, delay);
            int reported = finishedPoints(c.err());
            String where = "kill " + k + " after " + delay / 1_000_000 + " ms (seed " + seed + "): ";
            if (!Files.exists(c.results())) {
                assertEquals(0, reported, where + "the sweep reported rows but left no file");
                absent++;
                continue;
            }
            ResultsFile file;
            try {
                file = ResultsFile.read(c.results());
            } catch (BadResultsFile e) {
                fail(where + "the file does not parse: " + e.getMessage());
                return;
            }
            List<BenchRow> rows = file.rows();
            assertTrue(rows.size() >= reported, where + rows.size() + " rows, but the sweep reported " + reported + " finished");
            for (int i = 0; i < rows.size(); i++) {
                BenchRow got = rows.get(i);
                BenchRow want = reference.rows().get(i);
                assertEquals(i, got.index(), where + "rows out of order");
                assertEquals(List.of(want.config(), want.density(), want.tiles(), want.pass(), want.stats(), want.status()),
                        List.of(got.config(), got.density(), got.tiles(), got.pass(), got.stats(), got.status()), where + "row " + i);
            }
            cutShort += file.truncation().isPresent() ? 1 : 0;
            empty += rows.isEmpty() ? 1 : 0;
            rowsKept.add(rows.size());
        }
        ReliabilityLog.write("files-bench-kill", new ReliabilityLog.Row("Files", 400,
                "a real saw bench --backend cpu sweep (40 points) in a child JVM killed with SIGKILL at random moments", KILLS,
                "the results file always parsed and held every row reported finished, identical to an uninterrupted run's; "
                        + "killed before the file existed: file absent (never half a header)",
                "nothing", String.format(Locale.ROOT, "uninterrupted run %.1f s; per kill: %d absent, %d header only, rows kept %s, "
                        + "%d with a cut-short last line (dropped on reading)", whole.nanos() / 1e9, absent, empty, rowsKept, cutShort)));
    }

    /** Runs the sweep in a child JVM; kills it after {@code killAfterNanos} (never when negative). */
    private Child run(String name, long killAfterNanos) throws IOException, InterruptedException {
        Path results = dir.resolve(name + ".json");
        Path err = dir.resolve(name + ".err");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", classPath(), "saw.app.Main"));
        cmd.addAll(SWEEP);
        cmd.addAll(List.of("--out", results.toString()));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile()).start();
        boolean finished;
        if (killAfterNanos < 0) {
            finished = p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0;
        } else {
            finished = p.waitFor(killAfterNanos, TimeUnit.NANOSECONDS);
            if (!finished) {
                p.destroyForcibly();
                p.waitFor(1, TimeUnit.MINUTES);
            }
        }
        long nanos = System.nanoTime() - start;
        return new Child(results, Files.readString(err, StandardCharsets.UTF_8), nanos, finished);
    }

    /** Points the sweep reported finished: a progress line "i/n" is printed when point i starts, after row i - 1 is written. */
    private static int finishedPoints(String err) {
        int most = 0;
        Matcher m = PROGRESS.matcher(err);
        while (m.find()) {
            most = Math.max(most, Integer.parseInt(m.group(1)));
        }
        if (err.contains("rows (")) { // the closing line: every point finished
            most = 40;
        }
        return most;
    }

    /** The test class path (surefire passes it in a property; its own java.class.path is a booter jar). */
    private static String classPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

}
