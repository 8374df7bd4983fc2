package saw.engine.tune;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import saw.engine.io.AtomicFiles;

/**
 * The tuned choices on disk: one small JSON file ({@value #FORMAT}) in the user's cache folder. Readers never lock
 * (every write is an atomic rename); writers take an exclusive lock on a sibling {@code .lock} file
 * ({@link AtomicFiles#withLock}), read the
 * current file, merge their entries and write it back, so two processes tuning at once both keep their results.
 * A corrupt file, one of another format version or an entry that does not parse is ignored with one warning line
 * and replaced at the next write.
 */
public final class TuneCache {
    static final String FORMAT = "saw.tune/1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final Consumer<String> warn;

    /**
     * @param warn receives one line per problem found in the file (corrupt, stale, bad entry)
     */
    public TuneCache(Path file, Consumer<String> warn) {
        this.file = file.toAbsolutePath();
        this.warn = warn;
    }

    /**
     * {@code $XDG_CACHE_HOME/saw/tune.json}, else {@code ~/.cache/saw/tune.json}; {@code -Dsaw.tune.cache=FILE} or
     * {@code SAW_TUNE_CACHE} override it.
     */
    public static Path defaultFile() {
        String set = System.getProperty("saw.tune.cache", System.getenv("SAW_TUNE_CACHE"));
        if (set != null && !set.isBlank()) {
            return Path.of(set);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("saw").resolve("tune.json");
    }

    public Path file() {
        return file;
    }

    public Optional<TuneChoice> lookup(TuneKey key) {
        return Optional.ofNullable(read().get(key.asString()));
    }

    /** Every readable entry, by key string. */
    public Map<String, TuneChoice> entries() {
        return read();
    }

    /** Stores (or replaces) one entry, keeping every other writer's entries. */
    public void put(TuneKey key, TuneChoice choice) throws IOException {
        Files.createDirectories(file.getParent());
        AtomicFiles.withLock(file, () -> {
            Map<String, TuneChoice> entries = read();
            entries.put(key.asString(), choice);
            write(entries);
            return null;
        });
    }

    /** Removes the file; true when there was one. */
    public boolean clear() throws IOException {
        if (!Files.exists(file.getParent())) {
            return false;
        }
        return AtomicFiles.withLock(file, () -> Files.deleteIfExists(file));
    }

    private Map<String, TuneChoice> read() {
        Map<String, TuneChoice> out = new LinkedHashMap<>();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return out;
        } catch (IOException e) {
            warn.accept("tune cache " + file + " cannot be read (" + e.getMessage() + "); ignoring it");
            return out;
        }
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            warn.accept("tune cache " + file + " is not valid JSON (line " + e.getLocation().getLineNr()
                    + "); ignoring it, the next tune rewrites it");
            return out;
        }
        if (root == null || !root.isObject() || !FORMAT.equals(root.path("format").asText())) {
            warn.accept("tune cache " + file + " is not a " + FORMAT + " file (format: " + (root == null ? "none"
                    : root.path("format").asText("none")) + "); ignoring it, the next tune rewrites it");
            return out;
        }
        JsonNode entries = root.path("entries");
        if (!entries.isObject()) {
            warn.accept("tune cache " + file + ": $.entries is not an object; ignoring the file");
            return out;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            try {
                out.put(e.getKey(), choice(e.getValue()));
            } catch (IllegalArgumentException bad) {
                warn.accept("tune cache " + file + ": $.entries[\"" + e.getKey() + "\"]: " + bad.getMessage() + "; ignoring it");
            }
        }
        return out;
    }

    private static TuneChoice choice(JsonNode n) {
        if (!n.isObject() || !n.path("winner").isTextual()) {
            throw new IllegalArgumentException("winner is missing");
        }
        for (String f : new String[] {"medianMs", "runnerUpMs", "defaultMs"}) {
            if (!n.path(f).isNumber()) {
                throw new IllegalArgumentException(f + " is not a number");
            }
        }
        return new TuneChoice(Candidate.parse(n.path("winner").asText()), n.path("medianMs").asDouble(),
                n.path("runnerUpMs").asDouble(), n.path("defaultMs").asDouble(), n.path("measuredAt").asText(""));
    }

    private void write(Map<String, TuneChoice> entries) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        ObjectNode all = root.putObject("entries");
        for (Map.Entry<String, TuneChoice> e : entries.entrySet()) {
            TuneChoice c = e.getValue();
            ObjectNode n = all.putObject(e.getKey());
            n.put("winner", c.winner().toString());
            n.put("medianMs", c.medianMs());
            n.put("runnerUpMs", c.runnerUpMs());
            n.put("defaultMs", c.defaultMs());
            n.put("measuredAt", c.measuredAt());
        }
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        AtomicFiles.write(file, out -> out.write(bytes));
    }
}
