package saw.engine.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process saving a file over and over (AtomicFiles, as every saw save does) is killed with SIGKILL at random
 * moments: the file is then absent (before the first save) or one whole version, never half of one, and never older
 * than the last version the process reported saved.
 */
class SaveKillTest {
    private static final int KILLS = 8;
    private static final int SIZE = 8 << 20;

    @Test
    void aSaveKilledAtAnyMomentLeavesTheOldFileOrTheNewOneWhole(@TempDir Path dir) throws Exception {
        long seed = Long.getLong("saw.test.seed", 0x5A7EL);
        SplittableRandom rnd = new SplittableRandom(seed);
        int absent = 0;
        int leftovers = 0;
        List<Integer> versions = new ArrayList<>();
        for (int k = 0; k < KILLS; k++) {
            Path sub = Files.createDirectory(dir.resolve("kill-" + k));
            Path file = sub.resolve("mask.json");
            Path log = sub.resolve("saved.txt");
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                    SaveLoop.class.getName(), file.toString(), Integer.toString(SIZE))
                    .redirectOutput(log.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            long delay = 300 + rnd.nextInt(1200);
            assertTrue(!p.waitFor(delay, TimeUnit.MILLISECONDS), "the save loop ended by itself");
            p.destroyForcibly();
            p.waitFor(1, TimeUnit.MINUTES);
            List<String> saved = Files.readAllLines(log, StandardCharsets.US_ASCII);
            int lastSaved = saved.isEmpty() ? -1 : Integer.parseInt(saved.get(saved.size() - 1).trim());
            String where = "kill " + k + " after " + delay + " ms (seed " + seed + "): ";
            try (Stream<Path> files = Files.list(sub)) {
                leftovers += (int) files.filter(f -> f.getFileName().toString().endsWith(".tmp")).count();
            }
            if (!Files.exists(file)) {
                assertEquals(-1, lastSaved, where + "version " + lastSaved + " was saved but the file is gone");
                absent++;
                continue;
            }
            byte[] bytes = Files.readAllBytes(file);
            String text = new String(bytes, 0, Math.min(40, bytes.length), StandardCharsets.US_ASCII);
            int version = Integer.parseInt(text.substring("version ".length(), text.indexOf('\n')));
            int header = text.indexOf('\n') + 1;
            byte letter = (byte) (version % 2 == 0 ? 'A' : 'B');
            assertEquals(header + SIZE + 5, bytes.length, where + "version " + version + " is not whole");
            for (int i = header; i < header + SIZE; i++) {
                if (bytes[i] != letter) {
                    fail(where + "version " + version + " holds byte " + i + " of another version");
                }
            }
            assertEquals("\nEND\n", new String(bytes, header + SIZE, 5, StandardCharsets.US_ASCII), where);
            assertTrue(version >= lastSaved, where + "the file holds version " + version + " but " + lastSaved + " was saved");
            versions.add(version);
        }
        ReliabilityLog.write("files-save-kill", new ReliabilityLog.Row("Files", 401,
                "a process saving an 8 MiB file over and over through AtomicFiles (as every saw save does), killed with SIGKILL at random moments",
                KILLS, "the file was always one whole version, never half of one, and never older than the last save reported; "
                        + "killed before the first save: no file", "nothing",
                String.format(Locale.ROOT, "versions found %s, %d kills before the first save; %d temporary files left by the kills",
                        versions, absent, leftovers)));
    }
}
