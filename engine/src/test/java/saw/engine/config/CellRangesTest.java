package saw.engine.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import saw.engine.mask.IntArray;

class CellRangesTest {
    @Test
    void formatThenParseGivesTheSameBlocks() {
        SplittableRandom rnd = new SplittableRandom(Long.getLong("saw.test.seed", 77L));
        for (int n = 0; n < 2000; n++) {
            TreeSet<Integer> set = new TreeSet<>();
            int width = 1 + rnd.nextInt(200);
            for (int k = rnd.nextInt(width); k > 0; k--) {
                set.add(rnd.nextInt(width));
            }
            int[] blocks = set.stream().mapToInt(Integer::intValue).toArray();
            String text = CellRanges.format(IntArray.of(blocks));
            assertArrayEquals(blocks, CellRanges.parse(text, Long.MAX_VALUE), text);
        }
    }

    @Test
    void runsBecomeRangesAndSinglesStayAlone() {
        assertEquals("0-3,7,9-10", CellRanges.format(IntArray.of(0, 1, 2, 3, 7, 9, 10)));
        assertEquals("", CellRanges.format(IntArray.of()));
        assertArrayEquals(new int[] {7, 0, 1, 2, 3, 2}, CellRanges.parse("7,0-3,2", 100));
    }
}
