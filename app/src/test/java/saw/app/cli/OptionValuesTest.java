package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;

class OptionValuesTest {
    @Test
    void passesKeepTheirOrderAndIgnoreBlanksAroundEachValue() {
        assertEquals(List.of(Pass.BWD, Pass.FWD), OptionValues.passes("--pass", List.of(" bwd", "FWD ")));
        assertEquals(List.of(), OptionValues.passes("--pass", List.of()));
    }

    @Test
    void aBadPassIsOneLineNamingTheOptionItCameFrom() {
        BadInput e = assertThrows(BadInput.class, () -> OptionValues.passes("--passes", List.of("fwd", "both")));
        assertEquals("--passes: pass 'both' is not one of fwd, bwd", e.getMessage());
    }

    @Test
    void dtypeReadsEitherLabelAndNamesTheOptionWhenItCannot() {
        assertEquals(DType.FP16, OptionValues.dtype("fp16"));
        assertEquals(DType.BF16, OptionValues.dtype("BF16"));
        BadInput e = assertThrows(BadInput.class, () -> OptionValues.dtype("fp8"));
        assertEquals("--dtype: dtype 'fp8' is not one of bf16, fp16", e.getMessage());
    }
}
