package saw.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.config.Presets;
import saw.ui.files.SessionStore;

class SessionStoreTest {
    @Test
    void aSavedSessionReadsBackAndABrokenOneSaysWhy(@TempDir Path dir) throws Exception {
        SessionStore store = new SessionStore(dir);
        assertTrue(store.load().isEmpty());
        var config = Presets.get("gemma-per-head");
        Path file = dir.resolve("a.json");
        List<Path> recent = SessionStore.withRecent(List.of(dir.resolve("b.json"), file), file);
        assertEquals(2, recent.size());
        store.save(config, file, true, recent, false, 3, 0);
        var s = store.load().orElseThrow();
        assertEquals(config, s.config());
        assertEquals(file.toAbsolutePath(), s.file());
        assertTrue(s.unsaved());
        assertFalse(s.cleanExit());
        assertEquals(3, s.head());
        assertEquals(recent, s.recent());

        Files.writeString(dir.resolve("autosave.json"), "{ \"schema\": \"saw.mask/1\" ");
        var broken = store.load().orElseThrow();
        assertEquals(null, broken.config());
        assertTrue(broken.problem().contains("autosave.json"), broken.problem());
    }
}
