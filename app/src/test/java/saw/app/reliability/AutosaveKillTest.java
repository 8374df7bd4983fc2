package saw.app.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.reliability.ReliabilityLog;
import saw.ui.files.SessionStore;

/**
 * The window's autosave (SessionStore, every 30 s and on exit) killed with SIGKILL at random moments, in a child
 * process: the next start finds a session that reads back, marked as not closed cleanly (so the window restores it
 * with a note), holding the last autosaved mask or the one being saved when the kill came.
 */
class AutosaveKillTest {
    private static final int KILLS = 6;

    @Test
    void anAutosaveKilledAtAnyMomentLeavesASessionToRecover(@TempDir Path dir) throws Exception {
        long seed = Long.getLong("saw.test.seed", 0xA5AL);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Integer> recovered = new ArrayList<>();
        int none = 0;
        for (int k = 0; k < KILLS; k++) {
            Path folder = dir.resolve("state-" + k);
            Path log = dir.resolve("saved-" + k + ".txt");
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                    AutosaveLoop.class.getName(), folder.toString())
                    .redirectOutput(log.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            long delay = 400 + rnd.nextInt(1200);
            assertFalse(p.waitFor(delay, TimeUnit.MILLISECONDS), "the autosave loop ended by itself");
            p.destroyForcibly();
            p.waitFor(1, TimeUnit.MINUTES);
            List<String> saved = Files.readAllLines(log, StandardCharsets.US_ASCII);
            int last = saved.isEmpty() ? -1 : Integer.parseInt(saved.get(saved.size() - 1).trim());
            String where = "kill " + k + " after " + delay + " ms (seed " + seed + "): ";
            Optional<SessionStore.Session> session = new SessionStore(folder).load();
            if (last < 0 && (session.isEmpty() || session.get().config() == null)) {
                none++;
                continue;
            }
            assertTrue(session.isPresent(), where + "autosave " + last + " was reported but no session is found");
            SessionStore.Session s = session.get();
            assertNull(s.problem(), where + s.problem());
            assertFalse(s.cleanExit(), where + "a killed window must not look closed cleanly");
            int version = s.config().seqLenQ() - 1024;
            assertTrue(version == last || version == last + 1, where + "recovered version " + version + ", last autosaved " + last);
            assertEquals(List.of(folder.resolve("my-mask.json").toAbsolutePath()), s.recent(), where);
            recovered.add(version);
        }
        ReliabilityLog.write("files-autosave-kill", new ReliabilityLog.Row("Files", 403,
                "the window's session autosave (SessionStore, every 30 s and on exit) in a child process killed with SIGKILL at random moments",
                KILLS, "the next start always found the session readable, marked not closed cleanly (the window restores it with a note), "
                        + "holding the last autosaved mask or the one being saved", "at most the edits since the last autosave",
                String.format(Locale.ROOT, "versions recovered %s; %d kills before the first autosave", recovered, none)));
    }
}
