package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The tensor maps saw asks the driver for: geometry, and the requests cuTensorMapEncodeTiled would refuse. */
class TileMapTest {
    @Test
    void headsMapIsHeadDimRowsHeadsInnermostFirstWithByteStrides() {
        Random rnd = new Random(42);
        for (int i = 0; i < 200; i++) {
            int d = 64 * (1 + rnd.nextInt(4));
            long rows = 1 + rnd.nextInt(1 << 20);
            long heads = 1 + rnd.nextInt(512);
            boolean bf16 = rnd.nextBoolean();
            TileMap m = TileMap.ofHeads(bf16, heads, rows, d, 64);
            assertArrayEquals(new long[] {d, rows, heads}, m.dims());
            assertArrayEquals(new long[] {2L * d, 2L * d * rows}, m.strides(), "bytes from one row, and one head, to the next");
            assertArrayEquals(new int[] {64, 64, 1}, m.box(), "a 128-byte panel row, 64 rows, one head");
            assertEquals(bf16, m.bf16());
        }
        assertArrayEquals(new int[] {64, 64, 1}, TileMap.ofHeads(true, 2, 3, 256, 64).box(),
                "a box longer than the head: the rows past it read zeros");
    }

    @Test
    void requestsTheDriverWouldRefuseAreRefusedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TileMap.ofHeads(true, 4, 100, 96, 64)).getMessage()
                .contains("head dim 96"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new TileMap(true, new long[] {64, 10}, new long[] {24}, new int[] {64, 8})).getMessage()
                .contains("multiples of 16"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new TileMap(true, new long[] {64, 10}, new long[] {128}, new int[] {64, 300})).getMessage()
                .contains("1..256"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new TileMap(true, new long[] {64, 10}, new long[] {128, 1280}, new int[] {64, 8})).getMessage()
                .contains("rank 2"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new TileMap(true, new long[] {64, (1L << 32) + 1}, new long[] {128}, new int[] {64, 8})).getMessage()
                .contains("2^32"));
    }

    @Test
    void mapsAreValuesAndKeepTheirArrays() {
        long[] dims = {128, 50, 4};
        TileMap a = new TileMap(false, dims, new long[] {256, 12800}, new int[] {64, 64, 1});
        dims[1] = 7;
        assertEquals(50, a.dims()[1], "a copy of the caller's array");
        a.dims()[1] = 9;
        assertEquals(50, a.dims()[1], "a copy to the caller");
        assertEquals(a, new TileMap(false, new long[] {128, 50, 4}, new long[] {256, 12800}, new int[] {64, 64, 1}));
        assertEquals(a.hashCode(), new TileMap(false, new long[] {128, 50, 4}, new long[] {256, 12800}, new int[] {64, 64, 1}).hashCode());
        assertNotEquals(a, new TileMap(true, new long[] {128, 50, 4}, new long[] {256, 12800}, new int[] {64, 64, 1}));
    }
}
