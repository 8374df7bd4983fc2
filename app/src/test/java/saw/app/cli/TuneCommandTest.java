package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TuneCommandTest {
    @TempDir
    Path dir;
    private String before;

    private record Result(int code, String out, String err) {}

    @BeforeEach
    void pointTheCacheIntoTheTempFolder() {
        before = System.getProperty("saw.tune.cache");
        System.setProperty("saw.tune.cache", dir.resolve("cache/tune.json").toString());
    }

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty("saw.tune.cache");
        } else {
            System.setProperty("saw.tune.cache", before);
        }
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        PrintStream sysErr = System.err;
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int code = SawCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
            return new Result(code, out.toString(), err + e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(sysErr);
        }
    }

    @Test
    void clearRemovesTheCacheFileAndSaysWhere() throws Exception {
        Path file = dir.resolve("cache/tune.json");
        Result r = run("tune", "--clear");
        assertEquals(SawCli.OK, r.code(), r.err());
        assertTrue(r.out().contains("no tune cache at " + file), r.out());
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{}");
        r = run("tune", "--clear");
        assertEquals(SawCli.OK, r.code(), r.err());
        assertTrue(r.out().contains("removed " + file), r.out());
        assertFalse(Files.exists(file));
    }

    @Test
    void badOptionsExitTwoWithOneLineNamingTheOption() {
        Result r = run("tune");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().contains("saw tune: SPEC is required"), r.err());
        r = run("tune", "preset:causal", "--passes", "sideways");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().startsWith("saw tune: --passes: "), r.err());
        r = run("tune", "preset:causal", "--dtype", "fp8");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().startsWith("saw tune: --dtype: "), r.err());
        r = run("tune", "preset:causal", "--heads", "6", "--kv-heads", "4");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().contains("must be a multiple of kv-heads"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    @Test
    void benchTimesSinksOnTheCpuAndItsRowsSaySo() throws Exception {
        java.nio.file.Path out = dir.resolve("r.jsonl");
        Result r = run("bench", "preset:causal", "--seq", "256", "--backend", "cpu", "--sinks", "--pass", "fwd,bwd",
                "--warmup", "0", "--reps", "1", "--out", out.toString());
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        var rows = saw.engine.bench.ResultsFile.read(out).rows();
        assertFalse(rows.isEmpty());
        for (var row : rows) {
            assertTrue(row.ok() && row.sinks() && row.kernel().endsWith("_sinks"), row.toString());
        }
    }

    @Test
    void withoutAGpuTheTuneSaysWhyAndExitsOne() {
        org.junit.jupiter.api.Assumptions.assumeFalse(saw.engine.gpu.GpuBackend.detect().usable(),
                "a usable GPU is present: this test is for machines without one");
        Result r = run("tune", "preset:causal", "--seq", "1024");
        assertEquals(SawCli.INTERNAL_ERROR, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("saw tune: "), r.err());
    }

    @Test
    void verifyWithSinksChecksDsinkOnTheCpu() {
        PrintStream sysOut = System.out;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        Result r;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            r = run("verify", "and(causal,docs(50,70))", "--seq", "150", "--heads", "4", "--kv-heads", "2", "--head-dim", "32",
                    "--block", "64x32", "--backend", "cpu", "--softcap", "20", "--sinks");
        } finally {
            System.setOut(sysOut);
        }
        String out = o.toString(StandardCharsets.UTF_8);
        assertEquals(SawCli.OK, r.code(), out + r.err());
        assertTrue(out.contains("sinks random"), out);
        assertTrue(out.contains("\ndSink"), out);
        assertTrue(out.trim().endsWith("PASS"), out);
    }
}
