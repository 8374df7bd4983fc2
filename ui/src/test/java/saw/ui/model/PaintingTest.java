package saw.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

class PaintingTest {
    @Test
    void aStrokePaintsFromAClearCellAndErasesFromASetOne() {
        Mask.Painted empty = new Mask.Painted(64, 64, List.of());
        // token rectangles of 128x128 tiles cover 2x2 cells of 64
        Mask.Painted painted = Painting.apply(empty, List.of(new int[] {128, 256, 0, 128}), true);
        assertEquals(List.of(IntArray.of(), IntArray.of(), IntArray.of(0, 1), IntArray.of(0, 1)), painted.rows());
        assertEquals(4, Painting.cellCount(empty, List.of(new int[] {128, 256, 0, 128})));
        Mask.Painted erased = Painting.apply(painted, List.of(new int[] {192, 256, 64, 128}), false);
        assertEquals(List.of(IntArray.of(), IntArray.of(), IntArray.of(0, 1), IntArray.of(0)), erased.rows());
        assertEquals(List.of(), Painting.apply(erased, List.of(new int[] {128, 256, 0, 128}), false).rows(),
                "trailing empty rows are dropped");
    }
}
