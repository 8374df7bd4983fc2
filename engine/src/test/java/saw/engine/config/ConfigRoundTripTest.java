package saw.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;

class ConfigRoundTripTest {
    private static final int RANDOM_CONFIGS = 1500;

    @Test
    void everyPresetReadsBackEqualAndIsWrittenInCanonicalForm() throws Exception {
        for (Preset p : Presets.all()) {
            String json = ConfigWriter.toJson(p.config());
            assertEquals(p.config(), ConfigReader.parse(p.name(), json), p.name());
            assertEquals(shippedText(p.name()), json, "preset " + p.name() + " is not in the writer's form");
        }
    }

    @Test
    void randomConfigsReadBackEqualAndWriteIdentically() {
        long master = Long.getLong("saw.test.seed", 0xC0F1L);
        int checked = 0;
        for (int n = 0; n < RANDOM_CONFIGS; n++) {
            long seed = master * 1_000_003L + n;
            try {
                checked += roundTrip(seed) ? 1 : 0;
            } catch (AssertionError | RuntimeException | ConfigException e) {
                fail("config " + n + " failed; replay with seed " + seed + ": " + e.getMessage(), e);
            }
        }
        assertTrue(checked > RANDOM_CONFIGS / 2, "only " + checked + " random configs were valid");
    }

    /** Whether the random config was valid (and so was checked). */
    private static boolean roundTrip(long seed) throws ConfigException {
        SplittableRandom rnd = new SplittableRandom(seed);
        Dims dims = RandomMasks.randomDims(rnd, 300);
        Mask mask = new RandomMasks(rnd, dims).mask(3);
        if (!MaskChecks.check(mask, dims).isEmpty()) {
            return false;
        }
        String description = rnd.nextBoolean() ? "" : "random \"config\" " + seed + "\n\u00e9\u4e2d\t\\";
        BlockSize block = new BlockSize(RandomMasks.randomBlock(rnd), RandomMasks.randomBlock(rnd));
        MaskConfig config = new MaskConfig("random " + seed, description, dims.seqQ(), dims.seqKv(), dims.batch(),
                dims.heads(), block, mask);
        String json = ConfigWriter.toJson(config);
        MaskConfig back = ConfigReader.parse("random.json", json);
        assertEquals(config, back, json);
        assertEquals(json, ConfigWriter.toJson(back));
        return true;
    }

    @Test
    void writingToAFileReadsBackEqual(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("mask.json");
        for (Preset p : Presets.all()) {
            ConfigWriter.write(p.config(), file);
            assertEquals(p.config(), ConfigReader.read(file), p.name());
        }
    }

    @Test
    void paintedCellsAndGlobalCountUseTheirCompactForms() throws Exception {
        Mask painted = new Mask.Painted(16, 16, List.of(
                IntArray.of(7, 0, 1, 2, 3), IntArray.of(), IntArray.of(2, 4)));
        MaskConfig config = new MaskConfig("p", "", 64, 128, 1, 1, new BlockSize(16, 16),
                Mask.Or.of(painted, Mask.GlobalTokens.first(3)));
        String json = ConfigWriter.toJson(config);
        assertTrue(json.contains("\"cells\": [\"0-3,7\", \"\", \"2,4\"]"), json);
        assertTrue(json.contains("{ \"global_tokens\": { \"count\": 3 } }"), json);
        assertEquals(config, ConfigReader.parse("p.json", json));
    }

    private static String shippedText(String name) throws IOException {
        try (InputStream in = Presets.class.getClassLoader().getResourceAsStream("saw/presets/" + name + ".json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void withSeqChangesOnlyTheLengthsAndLeavesValidationToTheCaller() {
        MaskConfig packed = Presets.get("packed-documents");
        MaskConfig small = packed.withSeq(4096);
        assertEquals(4096, small.seqLenQ());
        assertEquals(4096, small.seqLenKv());
        assertEquals(packed.mask(), small.mask());
        assertEquals("/mask/and/1/documents/lengths", small.problems().get(0).path());
        assertTrue(packed.problems().isEmpty());
    }

    @Test
    void blockSizesParseFromQxKv() {
        assertEquals(new BlockSize(128, 64), BlockSize.parse("128x64"));
        assertEquals(new BlockSize(16, 512), BlockSize.parse(" 16X512 "));
        for (String bad : new String[] {"128", "128x", "x64", "100x64", "128x1024", "axb", "128x64x2", "-16x16"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BlockSize.parse(bad), bad);
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
        assertEquals("128x64", new BlockSize(128, 64).toString());
    }

    @Test
    void presetNamesMatchTheirFilesAndTheIndexListsEveryFile() throws IOException {
        for (Preset p : Presets.all()) {
            assertEquals(p.name(), p.config().name());
            assertTrue(!p.config().description().isBlank(), p.name() + " has no description");
        }
        Path folder = Path.of("../presets");
        if (Files.isDirectory(folder)) { // run from the engine module, as Maven does
            try (var files = Files.list(folder)) {
                List<String> shipped = files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".json"))
                        .map(f -> f.substring(0, f.length() - 5)).sorted().toList();
                assertEquals(shipped, Presets.names().stream().sorted().toList());
            }
        }
        assertEquals(11, Presets.all().size());
    }

    @Test
    void unknownPresetListsTheKnownNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Presets.get("casual"));
        assertTrue(e.getMessage().startsWith("unknown preset \"casual\"; known presets: causal, sliding-window"), e.getMessage());
    }
}
