package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.cpu.CpuBackend;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.BadSelection;
import saw.engine.nsa.NsaCpu;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;

/** Every backward entry point, on the CPU and on the GPU through a fake driver, refuses inputs drawn without dO. */
class BackwardNeedsGradientTest {
    private static final String MESSAGE = "the backward pass needs inputs with dO";

    @Test
    void backwardPassesRefuseForwardOnlyInputsBeforeTouchingTheDevice() throws BadSelection {
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 128, 128, 64, DType.BF16);
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(128, 128, 1, 2)).compile(64, 64);
        NsaSelection sel = NsaSelections.random(1, 128, 2, 2, 64, 3);
        AttentionInputs forwardOnly = AttentionInputs.random(p, 1, false);
        FakeDriver driver = new FakeDriver(1L << 30);
        try (CpuBackend cpu = new CpuBackend();
             GpuBackend gpu = GpuBackend.open(driver, new byte[16], "fake GPU");
             NsaCpu nsaCpu = new NsaCpu();
             NsaGpu nsaGpu = NsaGpu.open(driver, new byte[16], "fake GPU")) {
            AttentionOutputs whole = cpu.forward(forwardOnly, layout);
            List<Executable> backwards = List.of(
                    () -> cpu.forwardBackward(forwardOnly, layout),
                    () -> cpu.backward(forwardOnly, layout, whole),
                    () -> gpu.forwardBackward(forwardOnly, layout),
                    () -> gpu.backward(forwardOnly, layout, whole),
                    () -> nsaCpu.forwardBackward(forwardOnly, sel),
                    () -> nsaGpu.forwardBackward(forwardOnly, sel));
            for (int i = 0; i < backwards.size(); i++) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, backwards.get(i), "entry point " + i);
                assertEquals(MESSAGE, e.getMessage(), "entry point " + i);
            }
            assertTrue(driver.launched.isEmpty(), "nothing launched: " + driver.launched);
            assertTrue(driver.live.isEmpty(), "nothing allocated");
        }
        AttentionInputs withGradient = AttentionInputs.random(p, 1, true);
        assertSame(withGradient, withGradient.requireGradient());
    }
}
