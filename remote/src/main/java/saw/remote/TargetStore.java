package saw.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import saw.engine.io.AtomicFiles;

/**
 * The remote targets the user saved (in the window's target dialog): a name, the address and the command prefix,
 * in ~/.config/saw/targets.json. It holds no password, passphrase or key: those stay with the user's SSH setup.
 */
public final class TargetStore {
    /** A saved target. */
    public record Saved(String name, Target target) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;

    public TargetStore(Path file) {
        this.file = file;
    }

    /** ~/.config/saw/targets.json (or $XDG_CONFIG_HOME/saw/targets.json). */
    public static TargetStore user() {
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return new TargetStore(base.resolve("saw").resolve("targets.json"));
    }

    public Path file() {
        return file;
    }

    /** The saved targets; a missing file is none, an unreadable one is an error naming the file and entry. */
    public List<Saved> load() throws IOException {
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        JsonNode root = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
        JsonNode list = root == null ? null : root.get("targets");
        if (list == null || !list.isArray()) {
            throw new IOException(file + ": expected {\"targets\": [...]}");
        }
        List<Saved> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode t = list.get(i);
            try {
                out.add(new Saved(t.path("name").asText(), Target.parse(t.path("address").asText(), t.path("prefix").asText(""))));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": /targets/" + i + "/address: " + e.getMessage(), e);
            }
        }
        return out;
    }

    /** The saved target of this name, if any. */
    public Optional<Saved> find(String name) throws IOException {
        return load().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** Replaces the file with these targets, atomically. */
    public void save(List<Saved> targets) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("targets");
        for (Saved s : targets) {
            ObjectNode o = list.addObject();
            o.put("name", s.name());
            o.put("address", s.target().address());
            o.put("prefix", s.target().prefix());
        }
        Files.createDirectories(file.getParent());
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        AtomicFiles.write(file, out -> out.write(bytes));
    }
}
