package saw.engine.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** Turns what a user types for a config (a file path, or {@code preset:NAME}) into a {@link MaskConfig}. */
public final class SpecLoader {
    public static final String PRESET_PREFIX = "preset:";

    private SpecLoader() {}

    /**
     * Loads the config {@code spec} names.
     *
     * @throws ConfigException naming the spec: a missing or unreadable file, an unknown preset, or every problem in
     *     the file
     */
    public static MaskConfig load(String spec) throws ConfigException {
        if (spec.startsWith(PRESET_PREFIX)) {
            try {
                return Presets.get(spec.substring(PRESET_PREFIX.length()));
            } catch (IllegalArgumentException e) {
                throw ConfigException.of(spec, e.getMessage());
            }
        }
        if (spec.isBlank()) {
            throw ConfigException.of("(empty)", "give a config file or preset:NAME");
        }
        Path file;
        try {
            file = Path.of(spec);
        } catch (InvalidPathException e) {
            throw ConfigException.of(spec, "is not a valid file path: " + e.getReason());
        }
        return ConfigReader.read(file);
    }
}
