package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.scene.Node;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import saw.engine.guard.Estimate;
import saw.ui.run.RunModel;

/** The run panel shows what the sweep's largest point needs before Run, and refuses a sweep that would not fit. */
class RunEstimateTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    @Test
    void aTinyCpuSweepShowsItsBytesAndAHugeOneIsRefusedBeforeRun(FxRobot robot) {
        waitForCompiledCurrent();
        type(robot, "#seq-q", "512");
        type(robot, "#seq-kv", "512");
        waitForCompiledCurrent();
        fxRun(() -> wb.showTab("Run"));
        waitUntil("the backends are probed", () -> wb.run().backendProperty().get() != null);
        fxRun(() -> wb.run().backendProperty().set(wb.run().backends().stream()
                .filter(b -> b.name().equals("cpu")).findFirst().orElseThrow()));
        type(robot, "#run-heads", "1");
        type(robot, "#run-tiles", "64x64");
        Node label = robot.lookup("#run-estimate").query();
        Node run = robot.lookup("#run-start").query();

        waitUntil("the estimate of the 512-token sweep", () -> estimateAt(512));
        Estimate small = fx(() -> wb.run().estimateProperty().get());
        assertTrue(small.fits(), small.sentence());
        assertTrue(small.bytes() > 0, small.sentence());
        assertEquals(small.sentence(), text(robot, "#run-estimate"));
        assertTrue(text(robot, "#run-estimate").startsWith("the CPU fwd pass on B=1 H=1 Hkv=1 Sq=512"),
                text(robot, "#run-estimate"));
        assertTrue(text(robot, "#run-estimate").contains(" needs about "), text(robot, "#run-estimate"));
        assertFalse(fx(() -> label.getStyleClass().contains("error")));
        assertFalse(fx(run::isDisabled), "Run is enabled");

        // the largest point decides: 1,048,576 tokens with 64 heads needs over 100 GiB of fp32 tensors
        type(robot, "#run-heads", "64");
        fxRun(() -> wb.run().sweptProperty().set(RunModel.Swept.SEQ));
        type(robot, "#run-values", "512, 1048576");
        waitUntil("the estimate of the 1M-token point", () -> estimateAt(1 << 20), () -> wb.run().estimateTextProperty().get());
        Estimate huge = fx(() -> wb.run().estimateProperty().get());
        assertFalse(huge.fits(), huge.sentence());
        String shown = text(robot, "#run-estimate");
        assertEquals(huge.sentence(), shown);
        assertTrue(shown.startsWith("the CPU fwd pass on B=1 H=64 Hkv=64 Sq=1048576"), shown);
        assertTrue(shown.contains(", but only ") && shown.contains("use fewer heads"), shown);
        assertTrue(fx(() -> label.getStyleClass().contains("error")));
        assertTrue(fx(run::isDisabled), "Run is refused");

        type(robot, "#run-values", "512, 1024");
        waitUntil("the estimate of the 1024-token point", () -> estimateAt(1024));
        assertFalse(fx(() -> label.getStyleClass().contains("error")));
        assertFalse(fx(run::isDisabled), "Run is enabled again");
    }

    /** Whether the estimate shown is of a point with {@code seq} tokens (a later setting may still be estimating). */
    private boolean estimateAt(int seq) {
        Estimate e = wb.run().estimateProperty().get();
        return e != null && e.work().contains(" Sq=" + seq + " ");
    }
}
