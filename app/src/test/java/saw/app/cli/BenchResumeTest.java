package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;

/** {@code saw bench --resume} here: an interrupted results file (last line cut short) is finished, and only the rest runs. */
class BenchResumeTest {
    @TempDir
    Path dir;

    private static final List<String> SWEEP = List.of("bench", "preset:causal", "--seq", "256", "--density", "0.25,0.5,0.75,1",
            "--block", "64x64", "--heads", "2", "--head-dim", "16", "--backend", "cpu", "--reps", "2", "--warmup", "0");

    private CliTest.Run bench(Path out, String... more) {
        List<String> args = new ArrayList<>(SWEEP);
        args.add("--out");
        args.add(out.toString());
        args.addAll(List.of(more));
        return CliTest.saw(args.toArray(String[]::new));
    }

    @Test
    void resumeFinishesAnInterruptedFileAndRunsOnlyTheRest() throws Exception {
        Path full = dir.resolve("full.json");
        assertEquals(0, bench(full).code());
        List<String> lines = Files.readAllLines(full);
        assertEquals(5, lines.size());
        Path cut = dir.resolve("cut.json");
        // header, two rows, and half of the third row: a sweep killed while writing
        Files.writeString(cut, lines.get(0) + "\n" + lines.get(1) + "\n" + lines.get(2) + "\n" + lines.get(3).substring(0, 40),
                StandardCharsets.UTF_8);
        CliTest.Run r = bench(cut, "--resume");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("2 points (from row 2)"), r.err());
        assertTrue(r.err().contains("incomplete"), "the cut line is reported: " + r.err());
        ResultsFile resumed = ResultsFile.read(cut);
        ResultsFile whole = ResultsFile.read(full);
        assertTrue(resumed.truncation().isEmpty());
        assertEquals(4, resumed.rows().size());
        for (int i = 0; i < 4; i++) {
            BenchRow a = resumed.rows().get(i);
            assertEquals(i, a.index());
            assertEquals(whole.rows().get(i).stats(), a.stats(), "row " + i);
            assertEquals(whole.rows().get(i).density(), a.density(), "row " + i);
        }
        CliTest.Run done = bench(cut, "--resume");
        assertEquals(0, done.code(), done.err());
        assertTrue(done.err().contains("all 4 rows are already in"), done.err());
    }

    @Test
    void resumingADifferentSweepIsOneLine() throws Exception {
        Path out = dir.resolve("r.json");
        assertEquals(0, bench(out).code());
        List<String> args = new ArrayList<>(SWEEP);
        args.set(args.indexOf("0.25,0.5,0.75,1"), "0.1,0.5");
        args.addAll(List.of("--out", out.toString(), "--resume"));
        CliTest.badInputInOneLine(CliTest.saw(args.toArray(String[]::new)), "--resume: row 0 of " + out + " is not row 0 of this sweep");
        CliTest.badInputInOneLine(bench(dir.resolve("missing.json"), "--resume"), "does not exist; run without --resume");
    }
}
