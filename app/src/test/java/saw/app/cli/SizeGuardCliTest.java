package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.reliability.ReliabilityLog;

/** saw stats and saw compile refuse work that would not fit, before starting it, in one line with the estimate. */
class SizeGuardCliTest {
    /** Valid, but its random blocks alone would take terabytes. */
    private static final String TERABYTES = "{ \"schema\": \"saw.mask/1\", \"name\": \"every block at random\", "
            + "\"seq_len_q\": 16777216, \"seq_len_kv\": 16777216, \"block\": { \"q\": 16, \"kv\": 16 }, "
            + "\"mask\": { \"random_blocks\": { \"block\": [16, 16], \"per_row\": 1048575, \"seed\": 1 } } }";

    @Test
    void statsAndCompileRefuseALayoutOfTerabytesWithTheEstimate(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("huge.json");
        Files.writeString(config, TERABYTES, StandardCharsets.UTF_8);
        long start = System.nanoTime();
        for (String[] args : new String[][] {{"stats", config.toString()}, {"compile", config.toString(), "--format", "flex"},
            {"compile", config.toString(), "--format", "nsa", "-o", dir.resolve("out.json").toString()}}) {
            CliTest.Run r = CliTest.saw(args);
            CliTest.badInputInOneLine(r, "compiling every block at random (16777216 x 16777216, batch 1, heads 1) to 16x16 tiles needs about ");
            assertTrue(r.err().contains(" TiB of Java heap, but only ") && r.err().contains("is free; use larger blocks"), r.err());
            assertTrue(r.out().isEmpty(), r.out());
        }
        assertTrue(System.nanoTime() - start < 30_000_000_000L, "refusing must not start the work");
        assertFalse(Files.exists(dir.resolve("out.json")));
        ReliabilityLog.write("guard-cli-heap", new ReliabilityLog.Row("Size guards", 210,
                "saw stats, saw compile and saw compile -o of a valid config whose random blocks alone would take terabytes", 3,
                "refused before starting: exit 2, one line naming the work, the estimate (TiB of Java heap) and the free heap; no file written",
                "nothing", String.format(java.util.Locale.ROOT, "%.2f s for the three", (System.nanoTime() - start) / 1e9)));
    }

    @Test
    void aCompileThatWouldTakeHoursIsRefusedWithItsTileCount(@TempDir Path dir) throws IOException {
        // every 16x16 tile of 2^24 x 2^24 tokens is PARTIAL: little memory, 2^40 tiles to classify
        Path config = dir.resolve("slow.json");
        Files.writeString(config, "{ \"schema\": \"saw.mask/1\", \"name\": \"dilated\", \"seq_len_q\": 16777216, "
                + "\"seq_len_kv\": 16777216, \"block\": { \"q\": 16, \"kv\": 16 }, \"mask\": { \"dilated\": { \"stride\": 2 } } }",
                StandardCharsets.UTF_8);
        CliTest.Run r = CliTest.saw("stats", config.toString());
        CliTest.badInputInOneLine(r, "compiling dilated (16777216 x 16777216, batch 1, heads 1) to 16x16 tiles classifies up to 1.1e+12 "
                + "tiles one by one, over saw's limit of 6.9e+10; use larger blocks or shorter sequences.");
        ReliabilityLog.write("guard-cli-time", new ReliabilityLog.Row("Size guards", 211,
                "saw stats of a valid config that fits in memory but would classify 2^40 tiles (days of compiling)", 1,
                "refused before starting: exit 2, one line with the tile count and saw's limit", "nothing", ""));
    }
}
