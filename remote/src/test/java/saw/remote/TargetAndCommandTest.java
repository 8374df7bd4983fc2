package saw.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetAndCommandTest {
    @TempDir
    Path dir;

    @Test
    void targetsParseUserHostPortAndAliases() {
        assertEquals(new Target("ana", "gpu.example.org", 2222, ""), Target.parse("ana@gpu.example.org:2222", null));
        assertEquals(new Target("", "gpu-box", 0, "srun -p gpu"), Target.parse(" gpu-box ", "  srun -p gpu "));
        assertEquals(new Target("me", "::1", 22, ""), Target.parse("me@[::1]:22", ""));
        assertEquals("me@[::1]:22", Target.parse("me@[::1]:22", "").address());
        assertEquals("gpu-box", Target.parse("gpu-box", "").address());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Target.parse("a@b:99999", ""));
        assertTrue(e.getMessage().contains("port 99999"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Target.parse("has space", ""));
        assertThrows(IllegalArgumentException.class, () -> Target.parse("", ""));
    }

    @Test
    void localFilesAreUploadedAndOutputsComeBack() throws Exception {
        Path config = Files.writeString(dir.resolve("mask it.json"), "{}");
        RemoteCommand c = RemoteCommand.of(List.of("tune", config.toString(), "--seq", "4096", "--out", dir.resolve("t.json").toString(),
                "--csv=" + dir.resolve("t.csv"), "--cache", "preset:causal"), Set.of());
        assertEquals(List.of("tune", "in/0-mask it.json", "--seq", "4096", "--out", "out/0-t.json", "--csv=out/1-t.csv", "--cache",
                "preset:causal"), c.args());
        assertEquals(Map.of(config.toAbsolutePath().normalize(), "in/0-mask it.json"), c.inputs());
        assertEquals(Map.of("out/0-t.json", dir.resolve("t.json").toAbsolutePath(), "out/1-t.csv", dir.resolve("t.csv").toAbsolutePath()),
                c.outputs());
        RemoteCommand kept = RemoteCommand.of(List.of("bench", "preset:causal", "--out", "-"), Set.of("--out"));
        assertEquals(List.of("bench", "preset:causal", "--out", "-"), kept.args());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RemoteCommand.of(List.of("bench", "x", "--export-flex", "dir"), Set.of()));
        assertTrue(e.getMessage().startsWith("--export-flex writes a folder"), e.getMessage());
    }

    @Test
    void shellQuotingSurvivesQuotesAndSpaces() throws Exception {
        String word = "it's a \"mask\" $HOME `x`";
        Process p = new ProcessBuilder("/bin/sh", "-c", "printf %s " + Shell.quote(word)).start();
        assertEquals(word, new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(0, p.waitFor());
    }

    @Test
    void gpuLineOfSawEnv() {
        assertEquals("NVIDIA H200 (sm_90, 139 GiB)", RemoteSaw.gpuOf("java: 17\ngpus:\n  NVIDIA H200 (sm_90, 139 GiB)\nkernels: built\n"));
        assertEquals("no GPU", RemoteSaw.gpuOf("java: 17\ngpus:    none\n"));
    }
}
