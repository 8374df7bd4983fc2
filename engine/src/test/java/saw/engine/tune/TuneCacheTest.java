package saw.engine.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;

class TuneCacheTest {
    @TempDir
    Path dir;

    static TuneKey key(String device, Pass pass) {
        AttentionProblem p = AttentionProblem.of(1, 8, 2, 8192, 8192, 128, DType.BF16);
        return TuneKey.of(device, pass, p, false, new MaskSignature(50, 2, 48, 1, 50, 100));
    }

    private static TuneChoice choice(String family, double ms) {
        return new TuneChoice(new Candidate(new KernelTiles(128, 128), family), ms, ms * 1.1, ms * 1.5, "2026-12-01T10:00:00Z");
    }

    @Test
    void anEntryRoundTripsAndOnlyItsKeyFindsIt() throws Exception {
        List<String> warnings = new ArrayList<>();
        TuneCache cache = new TuneCache(dir.resolve("sub/tune.json"), warnings::add);
        cache.put(key("H200|cc9.0", Pass.FWD), choice("wgmma-pp", 1.25));
        TuneCache again = new TuneCache(dir.resolve("sub/tune.json"), warnings::add);
        assertEquals(Optional.of(choice("wgmma-pp", 1.25)), again.lookup(key("H200|cc9.0", Pass.FWD)));
        assertEquals(Optional.empty(), again.lookup(key("H200|cc9.0", Pass.BWD)));
        assertEquals(Optional.empty(), again.lookup(key("A100|cc8.0", Pass.FWD)));
        assertEquals(List.of(), warnings);
        assertTrue(Files.readString(dir.resolve("sub/tune.json")).contains("\"format\" : \"saw.tune/1\""));
    }

    @Test
    void keysDifferInEveryFieldTheIssueNames() {
        AttentionProblem p = AttentionProblem.of(1, 8, 2, 8192, 8192, 128, DType.BF16);
        MaskSignature sig = new MaskSignature(50, 2, 48, 1, 50, 100);
        String base = TuneKey.of("gpu", Pass.FWD, p, false, sig).asString();
        List<String> variants = List.of(
                TuneKey.of("gpu2", Pass.FWD, p, false, sig).asString(),
                TuneKey.of("gpu", Pass.BWD, p, false, sig).asString(),
                TuneKey.of("gpu", Pass.FWD, AttentionProblem.of(1, 8, 2, 8192, 8192, 128, DType.FP16), false, sig).asString(),
                TuneKey.of("gpu", Pass.FWD, AttentionProblem.of(1, 8, 2, 8192, 8192, 64, DType.BF16), false, sig).asString(),
                TuneKey.of("gpu", Pass.FWD, AttentionProblem.of(1, 8, 8, 8192, 8192, 128, DType.BF16), false, sig).asString(),
                TuneKey.of("gpu", Pass.FWD, AttentionProblem.of(1, 8, 2, 16384, 16384, 128, DType.BF16), false, sig).asString(),
                TuneKey.of("gpu", Pass.FWD, p, true, sig).asString(),
                TuneKey.of("gpu", Pass.FWD, p, false, new MaskSignature(60, 2, 38, 1, 40, 100)).asString(),
                TuneKey.of("gpu", Pass.FWD, new AttentionProblem(1, 8, 2, 8192, 8192, 128, DType.BF16, 0.1, 30), false, sig)
                        .asString());
        for (String v : variants) {
            assertNotEquals(base, v);
        }
        // lengths in one power-of-two bucket share a key
        assertEquals(base, TuneKey.of("gpu", Pass.FWD, AttentionProblem.of(1, 8, 2, 8000, 8000, 128, DType.BF16), false, sig)
                .asString());
        assertEquals(8192, TuneKey.bucket(8192));
        assertEquals(8192, TuneKey.bucket(4097));
        assertEquals(1, TuneKey.bucket(1));
    }

    @Test
    void aCorruptFileIsIgnoredWithAWarningAndRewritten() throws Exception {
        Path file = dir.resolve("tune.json");
        Files.writeString(file, "{\"format\": \"saw.tune/1\", \"entries\": {\"x\": ", StandardCharsets.UTF_8);
        List<String> warnings = new ArrayList<>();
        TuneCache cache = new TuneCache(file, warnings::add);
        assertEquals(Optional.empty(), cache.lookup(key("gpu", Pass.FWD)));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("is not valid JSON"), warnings.get(0));
        cache.put(key("gpu", Pass.FWD), choice("mma", 2));
        warnings.clear();
        assertEquals(Optional.of(choice("mma", 2)), cache.lookup(key("gpu", Pass.FWD)));
        assertEquals(List.of(), warnings);
    }

    @Test
    void aFileOfAnotherVersionIsStaleAndBadEntriesAreSkippedOneByOne() throws Exception {
        Path file = dir.resolve("tune.json");
        Files.writeString(file, "{\"format\": \"saw.tune/0\", \"entries\": {}}", StandardCharsets.UTF_8);
        List<String> warnings = new ArrayList<>();
        TuneCache cache = new TuneCache(file, warnings::add);
        assertEquals(Optional.empty(), cache.lookup(key("gpu", Pass.FWD)));
        assertTrue(warnings.get(0).contains("is not a saw.tune/1 file (format: saw.tune/0)"), warnings.get(0));

        String good = key("gpu", Pass.FWD).asString();
        Files.writeString(file, "{\"format\": \"saw.tune/1\", \"entries\": {"
                + "\"bad\": {\"winner\": \"128x64 mma\", \"medianMs\": \"fast\", \"runnerUpMs\": 1, \"defaultMs\": 1},"
                + "\"" + good + "\": {\"winner\": \"128x64 mma\", \"medianMs\": 1, \"runnerUpMs\": 2, \"defaultMs\": 3, "
                + "\"measuredAt\": \"t\"}}}", StandardCharsets.UTF_8);
        warnings.clear();
        assertEquals(1, cache.entries().size());
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("$.entries[\"bad\"]: medianMs is not a number"), warnings.get(0));
    }

    @Test
    void clearRemovesTheFile() throws Exception {
        TuneCache cache = new TuneCache(dir.resolve("tune.json"), w -> { });
        assertFalse(cache.clear());
        cache.put(key("gpu", Pass.FWD), choice("mma", 1));
        assertTrue(cache.clear());
        assertEquals(Optional.empty(), cache.lookup(key("gpu", Pass.FWD)));
    }

    @Test
    void twoProcessesWritingAtOnceKeepEveryEntry() throws Exception {
        Path file = dir.resolve("tune.json");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        int each = 25;
        List<Process> ps = new ArrayList<>();
        for (String writer : new String[] {"a", "b"}) {
            ps.add(new ProcessBuilder(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", cp,
                    CacheWriterProcess.class.getName(), file.toString(), writer, String.valueOf(each))
                    .redirectErrorStream(true).redirectOutput(dir.resolve(writer + ".log").toFile()).start());
        }
        for (Process p : ps) {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "a writer process did not finish");
            assertEquals(0, p.exitValue(), "writer failed: " + Files.readString(dir.resolve(ps.indexOf(p) == 0 ? "a.log" : "b.log")));
        }
        List<String> warnings = new ArrayList<>();
        TuneCache cache = new TuneCache(file, warnings::add);
        assertEquals(2 * each, cache.entries().size(), "entries lost by concurrent writers");
        assertEquals(List.of(), warnings);
    }
}
