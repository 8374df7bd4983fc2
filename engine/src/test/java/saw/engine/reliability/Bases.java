package saw.engine.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import saw.engine.config.Presets;

/** The documents the fuzz test starts from: every shipped preset as shipped, and every file of the nasty corpus. */
final class Bases {
    /** One starting document. */
    record Base(String name, byte[] bytes) {}

    private Bases() {}

    static List<Base> presets() {
        List<Base> out = new ArrayList<>();
        for (String name : Presets.names()) {
            try (InputStream in = Bases.class.getClassLoader().getResourceAsStream("saw/presets/" + name + ".json")) {
                out.add(new Base("preset:" + name, in.readAllBytes()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** The corpus in engine/src/test/resources/nasty, by file name. */
    static List<Base> nasty() {
        try (Stream<Path> files = Files.list(nastyFolder())) {
            List<Base> out = new ArrayList<>();
            for (Path f : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                out.add(new Base(f.getFileName().toString(), Files.readAllBytes(f)));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path nastyFolder() {
        try {
            return Path.of(Bases.class.getResource("/nasty").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> expectations() {
        try {
            return Files.readAllLines(nastyFolder().resolve("expected.tsv"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
