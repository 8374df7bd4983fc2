package saw.engine.mask;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RandomBlockDrawTest {
    @Test
    void matchesTheValuesPublishedInFormatsMd() {
        assertArrayEquals(new int[] {1, 13, 16, 22, 25}, RandomBlockDraw.row(0, 0, 5, 37));
        assertArrayEquals(new int[] {35, 61, 66, 80}, RandomBlockDraw.row(-7, 3, 4, 100));
        assertArrayEquals(new int[] {234, 294, 924}, RandomBlockDraw.row(42, 1000, 3, 1024));
    }

    @Test
    void rowHoldsEveryBlockWhenPerRowCoversTheRow() {
        assertArrayEquals(new int[] {0, 1, 2}, RandomBlockDraw.row(9, 4, 7, 3));
    }

    @Test
    void neighbouringRowsDrawAboutAsIndependentlyAsChanceAllows() {
        int nkv = 64;
        int perRow = 8;
        long shared = 0;
        int rows = 2000;
        int[] previous = RandomBlockDraw.row(0, 0, perRow, nkv);
        for (int r = 1; r < rows; r++) {
            int[] row = RandomBlockDraw.row(0, r, perRow, nkv);
            assertEquals(perRow, row.length);
            for (int x : row) {
                shared += java.util.Arrays.binarySearch(previous, x) >= 0 ? 1 : 0;
            }
            previous = row;
        }
        double meanShared = (double) shared / (rows - 1);
        double expected = perRow * (double) perRow / nkv;
        assertTrue(Math.abs(meanShared - expected) < 0.25, "neighbouring rows share " + meanShared + " blocks on average, chance is " + expected);
    }
}
