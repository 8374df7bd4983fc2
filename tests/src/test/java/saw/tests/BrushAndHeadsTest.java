package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import javafx.geometry.Point2D;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import saw.engine.config.Presets;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.TileClass;
import saw.ui.grid.TileRef;
import saw.ui.model.NodePath;

class BrushAndHeadsTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    private Mask.Painted painted() {
        return (Mask.Painted) ((Mask.And) config().mask()).children().get(1);
    }

    private Point2D screen(TileRef t) {
        return fx(() -> {
            var view = wb.grid().view();
            return view.localToScreen(view.tileCentre(t));
        });
    }

    @Test
    void theBrushTogglesTheTilesADragPassesOverAsOneUndoableEdit(FxRobot robot) {
        waitForCompiledCurrent();
        robot.clickOn("#add-painted");
        waitForCompiledCurrent();
        assertEquals(NodePath.of(1), fx(() -> wb.composer().selectionProperty().get()));
        robot.clickOn("#brush");
        robot.drag(screen(new TileRef(20, 3)), MouseButton.PRIMARY).moveTo(screen(new TileRef(20, 6))).drop();
        waitForCompiledCurrent();
        Mask.Painted p = painted();
        assertEquals(IntArray.of(3, 4, 5, 6), p.rows().get(20));
        assertEquals(TileClass.FULL, fx(() -> wb.layout().compiled().layout().grid(0).classAt(20, 4)),
                "causal and painted: the painted tiles below the diagonal attend");
        assertEquals(TileClass.EMPTY, fx(() -> wb.layout().compiled().layout().grid(0).classAt(20, 7)));

        robot.drag(screen(new TileRef(20, 4)), MouseButton.PRIMARY).moveTo(screen(new TileRef(20, 5))).drop();
        waitForCompiledCurrent();
        assertEquals(IntArray.of(3, 6), painted().rows().get(20), "a stroke from a set cell erases");

        robot.clickOn("#mask-tree");
        robot.press(KeyCode.CONTROL, KeyCode.Z).release(KeyCode.Z, KeyCode.CONTROL);
        assertEquals(IntArray.of(3, 4, 5, 6), painted().rows().get(20), "one stroke is one undo");
    }

    @Test
    void headSelectorsAppearForPerHeadMasksAndShowEachHeadsGrid(FxRobot robot) {
        waitForCompiledCurrent();
        assertTrue(!fx(() -> robot.lookup("#show-head").query().isVisible()), "no head selector for one pattern");
        fxRun(() -> wb.files().openPreset(Presets.get("gemma-per-head")));
        waitForCompiledCurrent();
        waitUntil("the head selector shows", () -> robot.lookup("#show-head").query().isVisible());
        var layout = fx(() -> wb.layout().compiled().layout());
        assertTrue(layout.variantCount() > 1);
        for (int head : List.of(0, 1, 6)) {
            fxRun(() -> wb.layout().headProperty().set(head));
            waitUntil("head " + head + " is shown",
                    () -> wb.grid().view().gridProperty().get() == layout.grid(0, head));
        }
        assertTrue(fx(() -> robot.lookup("#shown-variant").queryLabeled().getText()).endsWith("of " + layout.variantCount()));
    }
}
