package saw.ui.files;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigReader;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
import saw.engine.io.AtomicFiles;

/**
 * What the window remembers between runs, in a folder of its own: {@code autosave.json} (the open config, as a
 * {@code saw.mask/1} file) and {@code session.json} (the file it came from, whether it had unsaved changes, the
 * recent files, the head and batch shown, and whether the window closed cleanly). Both are written atomically.
 */
public final class SessionStore {
    /** A remembered session. {@code config} is null when none was saved or it could not be read back. */
    public record Session(MaskConfig config, Path file, boolean unsaved, List<Path> recent, boolean cleanExit,
                          Instant savedAt, int head, int batch, String problem) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RECENT = 10;
    private final Path folder;

    public SessionStore(Path folder) {
        this.folder = folder;
    }

    /** The folder saw keeps its session in: {@code -Dsaw.stateDir}, else $XDG_CONFIG_HOME/saw, else ~/.config/saw. */
    public static Path defaultFolder() {
        String override = System.getProperty("saw.stateDir");
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return base.resolve("saw");
    }

    public Path folder() {
        return folder;
    }

    /** The last session, if there was one. Never throws: an unreadable session is reported in {@code problem}. */
    public Optional<Session> load() {
        Path state = folder.resolve("session.json");
        if (!Files.isRegularFile(state)) {
            return Optional.empty();
        }
        try {
            JsonNode n = JSON.readTree(Files.readString(state, StandardCharsets.UTF_8));
            List<Path> recent = new ArrayList<>();
            n.path("recent").forEach(r -> recent.add(Path.of(r.asText())));
            Path file = n.hasNonNull("file") ? Path.of(n.get("file").asText()) : null;
            MaskConfig config = null;
            String problem = null;
            Path autosave = folder.resolve("autosave.json");
            if (Files.isRegularFile(autosave)) {
                try {
                    config = ConfigReader.read(autosave);
                } catch (ConfigException e) {
                    problem = "the autosaved mask could not be read back: " + e.getMessage();
                }
            }
            return Optional.of(new Session(config, file, n.path("unsaved").asBoolean(false), recent,
                    n.path("clean_exit").asBoolean(true), Instant.ofEpochMilli(n.path("saved_at").asLong(0)),
                    n.path("head").asInt(0), n.path("batch").asInt(0), problem));
        } catch (IOException | RuntimeException e) {
            return Optional.of(new Session(null, null, false, List.of(), true, Instant.EPOCH, 0, 0,
                    "the last session could not be read: " + e.getMessage()));
        }
    }

    /** Saves the session; {@code cleanExit} is false while the window is open and true once it closed normally. */
    public void save(MaskConfig config, Path file, boolean unsaved, List<Path> recent, boolean cleanExit, int head,
                     int batch) throws IOException {
        Files.createDirectories(folder);
        ConfigWriter.write(config, folder.resolve("autosave.json"));
        ObjectNode n = JSON.createObjectNode();
        n.put("schema", "saw.session/1");
        if (file != null) {
            n.put("file", file.toAbsolutePath().toString());
        } else {
            n.putNull("file");
        }
        n.put("unsaved", unsaved);
        ArrayNode r = n.putArray("recent");
        recent.stream().limit(RECENT).forEach(p -> r.add(p.toAbsolutePath().toString()));
        n.put("clean_exit", cleanExit);
        n.put("saved_at", Instant.now().toEpochMilli());
        n.put("head", head);
        n.put("batch", batch);
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n);
        AtomicFiles.write(folder.resolve("session.json"), out -> out.write(bytes));
    }

    /** The theme last chosen in the window ("light", "dark"), or "" when none was. Never throws. */
    public String loadTheme() {
        try {
            Path p = folder.resolve("preferences.json");
            return Files.isRegularFile(p) ? JSON.readTree(Files.readString(p, StandardCharsets.UTF_8)).path("theme").asText("") : "";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Remembers the theme chosen in the window ({@code preferences.json}, written atomically). */
    public void saveTheme(String theme) throws IOException {
        Files.createDirectories(folder);
        ObjectNode n = JSON.createObjectNode();
        n.put("schema", "saw.preferences/1");
        n.put("theme", theme);
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n);
        AtomicFiles.write(folder.resolve("preferences.json"), out -> out.write(bytes));
    }

    /** Puts {@code file} first in a recent-files list, without duplicates, at most ten long. */
    public static List<Path> withRecent(List<Path> recent, Path file) {
        List<Path> out = new ArrayList<>();
        out.add(file.toAbsolutePath().normalize());
        for (Path p : recent) {
            if (out.size() < RECENT && !p.toAbsolutePath().normalize().equals(out.get(0))) {
                out.add(p);
            }
        }
        return List.copyOf(out);
    }
}
