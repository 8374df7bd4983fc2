package saw.engine.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The configs shipped with saw (the presets module): {@code saw/presets/index.txt} on the class path lists the files,
 * one name a line, and each {@code NAME.json} beside it is the preset {@code NAME}.
 */
public final class Presets {
    private static final String FOLDER = "saw/presets/";

    private Presets() {}

    /** Loaded once, on first use. */
    private static final class Loaded {
        static final List<Preset> ALL = load();
    }

    /** Every preset, in the order of the index. */
    public static List<Preset> all() {
        return Loaded.ALL;
    }

    public static List<String> names() {
        return all().stream().map(Preset::name).toList();
    }

    /**
     * The preset called {@code name}.
     *
     * @throws IllegalArgumentException listing the known names when there is none by that name
     */
    public static MaskConfig get(String name) {
        for (Preset p : all()) {
            if (p.name().equals(name)) {
                return p.config();
            }
        }
        throw new IllegalArgumentException("unknown preset \"" + name + "\"; known presets: " + String.join(", ", names()));
    }

    private static List<Preset> load() {
        List<Preset> presets = new ArrayList<>();
        for (String file : index()) {
            String name = file.substring(0, file.length() - ".json".length());
            try (InputStream in = open(file)) {
                presets.add(new Preset(name, ConfigReader.read("preset:" + name, in)));
            } catch (ConfigException e) {
                throw new IllegalStateException("shipped preset is broken: " + e.getMessage(), e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return List.copyOf(presets);
    }

    private static List<String> index() {
        List<String> files = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(open("index.txt"), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String file = line.strip();
                if (file.isEmpty() || file.startsWith("#")) {
                    continue;
                }
                if (!file.endsWith(".json") || file.contains("/")) {
                    throw new IllegalStateException(FOLDER + "index.txt lists \"" + file + "\"; it lists NAME.json files");
                }
                files.add(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static InputStream open(String file) {
        InputStream in = Presets.class.getClassLoader().getResourceAsStream(FOLDER + file);
        if (in == null) {
            throw new IllegalStateException(FOLDER + file + " is not on the class path (is saw-presets a dependency?)");
        }
        return in;
    }
}
