package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.bench.SweepRunner;

/** The CLI at sizes past what host arrays hold: bench's exit codes, dump's refusal and sampled dumps. */
class LongContextCliTest {
    @TempDir
    Path dir;

    @Test
    void benchExitsThreeWhenNoPointRanAndSaysHowManyFailed() {
        Path out = dir.resolve("r.json");
        CliTest.Run run = CliTest.saw("bench", "preset:sliding-window", "--seq", "1048576", "--batch", "1", "--heads", "32",
                "--kv-heads", "8", "--head-dim", "128", "--backend", "cpu", "--reps", "1", "--warmup", "0", "--out", out.toString());
        assertEquals(BenchCommand.NO_POINT_RAN, run.code(), run.err());
        String last = run.err().strip().lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.endsWith("every point failed (1 of 1)"), last);
    }

    @Test
    void partlyFailedSweepsExitZeroAndSaySoLast() {
        assertEquals(SawCli.OK, BenchCommand.exitCode(new SweepRunner.Outcome(3, 2, false)));
        assertEquals(BenchCommand.NO_POINT_RAN, BenchCommand.exitCode(new SweepRunner.Outcome(3, 3, false)));
        assertEquals(SawCli.OK, BenchCommand.exitCode(new SweepRunner.Outcome(0, 0, true)));
        assertTrue(BenchCommand.summary(new SweepRunner.Outcome(3, 2, false), Path.of("r.json"))
                .endsWith("2 of 3 points failed (their rows say why)"));
        assertTrue(BenchCommand.summary(new SweepRunner.Outcome(3, 0, false), Path.of("r.json")).endsWith("3 rows (0 failed) written to r.json"));
    }

    @Test
    void dumpRefusesFilesPastFourGibWithTheSizeInTheSentence() {
        CliTest.badInputInOneLine(CliTest.saw("dump", "preset:sliding-window", "--seq", "1048576", "--batch", "1", "--heads", "32",
                "--kv-heads", "8", "--head-dim", "128", "--out", dir.resolve("d").toString()),
                "the .npy files of B=1 H=32 Hkv=8 Sq=1048576 Skv=1048576 D=128 would take 80.1 GiB, more than saw dump writes "
                        + "(4.0 GiB); pass --rows N for N sampled rows per head");
        assertTrue(Files.notExists(dir.resolve("d").resolve("q.npy")));
    }

    @Test
    void sampledDumpWritesTheRowsItNames() throws Exception {
        Path out = dir.resolve("d");
        CliTest.Run run = CliTest.saw("dump", "preset:causal", "--seq", "256", "--block", "64x64", "--batch", "1", "--heads", "2",
                "--kv-heads", "1", "--head-dim", "16", "--backend", "cpu", "--rows", "3", "--out", out.toString());
        assertEquals(SawCli.OK, run.code(), run.err());
        for (Object[] f : new Object[][] {{"rows", 6 * 3}, {"q", 6 * 16}, {"o", 6 * 16}, {"lse", 6}, {"dq", 6 * 16},
                {"kv_rows", 3 * 3}, {"k", 3 * 16}, {"dv", 3 * 16}}) {
            byte[] bytes = Files.readAllBytes(out.resolve(f[0] + ".npy"));
            int header = 10 + ((bytes[8] & 0xff) | (bytes[9] & 0xff) << 8);
            assertEquals(header + 4L * (int) f[1], bytes.length, f[0] + ".npy");
        }
        assertTrue(Files.readString(out.resolve("meta.json")).contains("\"rows_per_head\" : 3"));
    }
}
