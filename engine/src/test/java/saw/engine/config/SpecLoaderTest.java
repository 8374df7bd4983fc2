package saw.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpecLoaderTest {
    @Test
    void presetsLoadByName() throws ConfigException {
        assertEquals(Presets.get("causal"), SpecLoader.load("preset:causal"));
    }

    @Test
    void anUnknownPresetNamesTheKnownOnes() {
        ConfigException e = assertThrows(ConfigException.class, () -> SpecLoader.load("preset:mistral"));
        assertEquals("preset:mistral: unknown preset \"mistral\"; known presets: " + String.join(", ", Presets.names()), e.getMessage());
    }

    @Test
    void filesLoadAndFileProblemsAreOneClearLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("m.json");
        Files.writeString(file, ConfigWriter.toJson(Presets.get("bigbird")));
        assertEquals(Presets.get("bigbird"), SpecLoader.load(file.toString()));

        Path missing = dir.resolve("nope.json");
        assertEquals(missing + ": no such file", assertThrows(ConfigException.class, () -> SpecLoader.load(missing.toString())).getMessage());
        assertEquals(dir + ": is a folder, not a config file", assertThrows(ConfigException.class, () -> SpecLoader.load(dir.toString())).getMessage());
        assertEquals("(empty): give a config file or preset:NAME", assertThrows(ConfigException.class, () -> SpecLoader.load("")).getMessage());

        Files.writeString(file, "{\n  \"schema\": 1\n}");
        assertEquals(file + ":2:13: /schema: must be a string, got 1",
                assertThrows(ConfigException.class, () -> SpecLoader.load(file.toString())).getMessage().lines().findFirst().get());
    }
}
