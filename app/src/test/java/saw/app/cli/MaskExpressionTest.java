package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.mask.Mask;

class MaskExpressionTest {
    @Test
    void primitivesAndCompositionsParseToTheirRecords() {
        assertEquals(new Mask.Causal(0), MaskExpression.parse("causal"));
        assertEquals(new Mask.Causal(-3), MaskExpression.parse("causal(-3)"));
        assertEquals(new Mask.SlidingWindow(256, 0), MaskExpression.parse("window(256)"));
        assertEquals(new Mask.SlidingWindow(128, -1), MaskExpression.parse("window(128,-1)"));
        assertEquals(Mask.Documents.ofLengths(3, 4), MaskExpression.parse("docs(3, 4)"));
        assertEquals(new Mask.RandomBlocks(64, 128, 2, 9), MaskExpression.parse("random(64,128,2,9)"));
        assertEquals(new Mask.Or(List.of(Mask.GlobalTokens.first(16), new Mask.Not(new Mask.Dilated(3)))),
                MaskExpression.parse("or(global(16),not(dilated(3)))"));
        assertEquals(new Mask.PerHead(List.of(new Mask.Full(), new Mask.Sinks(4))), MaskExpression.parse("heads(full,sinks(4))"));
        assertEquals(new Mask.And(List.of(new Mask.ChunkedCausal(8), new Mask.PrefixLm(5))),
                MaskExpression.parse("and(chunked(8),prefix(5))"));
    }

    @Test
    void mistakesNameThePositionAndWhatWasExpected() {
        assertEquals("mask expression 'and(causal,windw(3))', at character 12: unknown mask 'windw'",
                assertThrows(IllegalArgumentException.class, () -> MaskExpression.parse("and(causal,windw(3))")).getMessage());
        assertEquals("mask expression 'window(1,2,3)', at character 14: expected 1..2 numbers, got 3",
                assertThrows(IllegalArgumentException.class, () -> MaskExpression.parse("window(1,2,3)")).getMessage());
        assertEquals("mask expression 'causal)', at character 7: unexpected ')'",
                assertThrows(IllegalArgumentException.class, () -> MaskExpression.parse("causal)")).getMessage());
        assertEquals("mask expression 'docs(a)', at character 6: expected an integer",
                assertThrows(IllegalArgumentException.class, () -> MaskExpression.parse("docs(a)")).getMessage());
    }
}
