package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.scene.control.Label;
import javafx.scene.control.Slider;
import javafx.scene.control.Spinner;
import javafx.scene.control.TableView;
import javafx.scene.image.ImageView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** The Ring tab plans the current mask, follows the step slider and names the field at fault. */
class RingViewTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    @Test
    void ringTabShowsThePlanTheStepAndTheSchemeComparison(FxRobot robot) {
        waitForCompiledCurrent();
        fxRun(() -> wb.showTab("Ring"));
        // the tab builds its view when first selected, and the view's split panes put their items in the scene
        // graph only when their skins are made at the next pulse: the table may be missing for a moment, so wait
        // for it rather than query it at once
        waitUntil("the ring is planned", () -> robot.lookup("#ring-comparison").<TableView<?>>tryQuery()
                .map(t -> t.getItems().size() >= 3).orElse(false));
        ImageView grid = robot.lookup("#ring-grid").query();
        assertNotNull(fx(grid::getImage), "the tile grid is drawn");
        String summary = fx(() -> ((Label) robot.lookup("#ring-summary").query()).getText());
        assertTrue(summary.startsWith("balanced over 8 devices: imbalance "), summary);

        Slider step = robot.lookup("#ring-step").query();
        assertEquals(7.0, fx(step::getMax));
        fxRun(() -> step.setValue(3));
        waitUntil("the loads chart shows step 3", () -> fx(() -> ((org.jfree.chart.fx.ChartViewer) robot.lookup("#ring-loads")
                .query()).getChart().getCategoryPlot().getDataset().getRowKeys().contains("step 3")));

        Spinner<Integer> devices = robot.lookup("#ring-devices").query();
        fxRun(() -> devices.getValueFactory().setValue(1024));
        waitUntil("too many devices are refused by name", () -> ((Label) robot.lookup("#ring-failure").query()).getText()
                .startsWith("Devices: 1024 devices need at least 1024 chunks"));
    }
}
