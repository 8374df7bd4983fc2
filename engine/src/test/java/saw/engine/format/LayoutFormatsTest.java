package saw.engine.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

class LayoutFormatsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void byNameFindsEveryFormatAndRejectsUnknownNamesListingTheKnownOnes() {
        for (LayoutFormat f : LayoutFormats.all()) {
            assertSame(f, LayoutFormats.byName(f.name()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LayoutFormats.byName("flexx"));
        assertEquals("unknown format 'flexx'; known formats: flex, ejkernel, nsa, dense", e.getMessage());
    }

    @Test
    void denseRefusesMasksOverTheLimitNamingSizeAndLimit() {
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(16385, 64, 1, 1)).compile(128, 64);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LayoutFormats.byName("dense").write(layout, out));
        assertEquals("the dense export is limited to 16384 x 16384 tokens, but this mask is 16385 x 64;"
                + " use the flex, ejkernel or nsa format for larger masks", e.getMessage());
        assertEquals(0, out.size(), "nothing written before refusing");
    }

    @Test
    void exportsOverTheSizeLimitAreRefusedWithTheirEstimate() {
        TileLayout layout = BoundMask.bind(new Mask.Full(), Dims.square(1 << 20)).compile(16, 16);
        for (String name : List.of("flex", "nsa")) {
            LayoutFormat f = LayoutFormats.byName(name);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.write(layout, new ByteArrayOutputStream()));
            assertTrue(e.getMessage().startsWith("the " + name + " export of this 1048576 x 1048576 mask with 16x16 blocks would take up to "),
                    e.getMessage());
            assertTrue(e.getMessage().endsWith(" MB, over the 2048 MB limit; use larger blocks or shorter sequences"), e.getMessage());
        }
    }

    @Test
    void ejKernelCausalIntervalsAreExact() throws IOException {
        JsonNode root = write("ejkernel", BoundMask.bind(new Mask.Causal(0), Dims.square(64)).compile(16, 16));
        assertArrayEquals(new int[] {0, 0, 0, 0}, row(root, "lower_bounds"));
        assertArrayEquals(new int[] {1, 2, 3, 4}, row(root, "upper_bounds"));
        assertArrayEquals(new int[] {0, 0, 0, 0}, row(root, "lower_full_bounds"));
        assertArrayEquals(new int[] {0, 1, 2, 3}, row(root, "upper_full_bounds"));
        assertArrayEquals(new int[] {0, 1, 2, 3}, row(root, "dkdv_lower_bounds"));
        assertArrayEquals(new int[] {4, 4, 4, 4}, row(root, "dkdv_upper_bounds"));
        assertArrayEquals(new int[] {1, 2, 3, 3}, row(root, "dkdv_lower_full_bounds"), "column 3 has no FULL tile");
        assertArrayEquals(new int[] {4, 4, 4, 3}, row(root, "dkdv_upper_full_bounds"));
        assertTrue(root.get("exact").asBoolean());
        assertEquals(0, root.get("extra_tiles").asLong());
    }

    /** Sinks (FULL column 0) plus the diagonal leave gaps: rows 2 and 3 compute 1 and 2 EMPTY tiles needlessly. */
    @Test
    void ejKernelCountsTheEmptyTilesInsideGappedRows() throws IOException {
        Mask sinksAndDiagonal = new Mask.Or(List.of(new Mask.Sinks(16), new Mask.SlidingWindow(0, 0)));
        JsonNode root = write("ejkernel", BoundMask.bind(sinksAndDiagonal, new Dims(64, 64, 1, 3)).compile(16, 16));
        assertArrayEquals(new int[] {0, 0, 0, 0}, row(root, "lower_bounds"));
        assertArrayEquals(new int[] {1, 2, 3, 4}, row(root, "upper_bounds"));
        assertArrayEquals(new int[] {1, 1, 1, 1}, row(root, "upper_full_bounds"));
        assertArrayEquals(new int[] {0, 1, 2, 3}, row(root, "dkdv_lower_bounds"));
        assertArrayEquals(new int[] {4, 2, 3, 4}, row(root, "dkdv_upper_bounds"));
        assertArrayEquals(new int[] {0, 1, 2, 3}, row(root, "dkdv_lower_full_bounds"));
        assertArrayEquals(new int[] {4, 1, 2, 3}, row(root, "dkdv_upper_full_bounds"));
        assertFalse(root.get("exact").asBoolean());
        assertEquals(3 * 3, root.get("extra_tiles").asLong(), "3 EMPTY tiles in each of 3 heads");
        assertEquals(0, root.get("dkdv_extra_tiles").asLong());
        assertEquals(0, root.get("masked_full_tiles").asLong());
    }

    @Test
    void eachTopLevelKeyStartsItsOwnLine() throws IOException {
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), Dims.square(100)).compile(32, 16);
        for (LayoutFormat f : LayoutFormats.all()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            f.write(layout, out);
            String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
            JsonNode root = JSON.readTree(out.toByteArray());
            assertEquals(root.size() + 2, lines.length, f.name());
            assertEquals("{", lines[0], f.name());
            assertEquals("}", lines[lines.length - 1], f.name());
            assertTrue(lines[1].startsWith("\"saw\":{\"format\":\"saw." + f.name() + "/1\""), lines[1]);
        }
    }

    private static JsonNode write(String format, TileLayout layout) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LayoutFormats.byName(format).write(layout, out);
        return JSON.readTree(out.toByteArray());
    }

    /** Batch entry 0's bounds. */
    private static int[] row(JsonNode root, String key) {
        JsonNode a = root.get(key).get(0).get(0);
        int[] out = new int[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).asInt();
        }
        return out;
    }
}
