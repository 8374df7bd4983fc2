package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import javafx.geometry.Point2D;
import javafx.scene.input.KeyCode;
import javafx.geometry.VerticalDirection;
import org.junit.jupiter.api.Test;
import javafx.stage.Stage;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;
import saw.ui.grid.TileRef;
import saw.ui.grid.VisibleRange;
import saw.ui.model.NodePath;
import saw.ui.model.TileInfo;

class ComposeAndInspectTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private void typeInto(FxRobot robot, String query, String text) {
        robot.clickOn(query);
        robot.press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL);
        robot.write(text);
        robot.type(KeyCode.ENTER);
    }

    @Test
    void composingCausalAndSlidingWindowShowsTheEnginesTileCounts(FxRobot robot) {
        waitForCompiledCurrent();
        typeInto(robot, "#seq-q", "10000");
        typeInto(robot, "#seq-kv", "10000");
        robot.clickOn("#add-sliding_window");
        waitForCompiledCurrent();
        typeInto(robot, "#field-left", "700");
        waitForCompiledCurrent();

        Mask expected = Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(700, 0));
        assertEquals(expected, config().mask());
        assertEquals(10000, config().seqLenQ());
        TileLayout engine = BoundMask.bind(expected, config().dims()).compile(128, 128);
        assertEquals(count(engine.count(TileClass.EMPTY)), text(robot, "#count-empty"));
        assertEquals(count(engine.count(TileClass.PARTIAL)), text(robot, "#count-partial"));
        assertEquals(count(engine.count(TileClass.FULL)), text(robot, "#count-full"));
        assertEquals(count(engine.mask().attendedPairs()), text(robot, "#attended-pairs"));
        assertTrue(engine.count(TileClass.FULL) > 0 && engine.count(TileClass.PARTIAL) > 0);
    }

    @Test
    void anInvalidValueShowsTheEnginesMessageAtTheFieldAndTheGridKeepsTheLastValidMask(FxRobot robot) {
        waitForCompiledCurrent();
        robot.clickOn("#add-prefix_lm");
        waitForCompiledCurrent();
        var valid = fx(() -> wb.layout().compiled());
        typeInto(robot, "#field-prefix", "99999");
        waitUntil("the prefix is applied", () -> wb.composer().composition().mask() instanceof Mask.And a
                && a.children().get(1).equals(new Mask.PrefixLm(99999)));

        var problems = MaskChecks.check(config().mask(), config().dims());
        assertEquals(1, problems.size());
        waitUntil("the error shows at the field", () -> robot.lookup("#error-prefix").queryLabeled().isVisible());
        assertEquals(problems.get(0).message(), text(robot, "#error-prefix"));
        assertTrue(fx(() -> wb.layout().compiled()) == valid, "the grid keeps the last valid layout");
        assertEquals(NodePath.of(1), fx(() -> wb.composer().selectionProperty().get()));
    }

    @Test
    void hoveringATileShowsItsBlocksTokensClassAndShare(FxRobot robot) {
        waitForCompiledCurrent();
        TileRef tile = new TileRef(7, 7);
        Point2D p = fx(() -> {
            var view = wb.grid().view();
            return view.localToScreen(view.tileCentre(tile));
        });
        robot.moveTo(p);
        waitUntil("the tooltip shows", () -> wb.grid().view().tooltip().isShowing());
        String expected = fx(() -> TileInfo.of(wb.layout().compiled().layout(), 0, 7, 7).text());
        assertEquals(expected, fx(() -> wb.grid().view().tooltip().getText()));
        assertTrue(expected.contains("PARTIAL") && expected.contains("tokens 896-1023"), expected);
        robot.moveTo(fx(() -> {
            var view = wb.grid().view();
            return view.localToScreen(view.tileCentre(new TileRef(3, 20)));
        }));
        waitUntil("the tooltip follows", () -> wb.grid().view().tooltip().getText().startsWith("q-block 3 "));
        assertTrue(fx(() -> wb.grid().view().tooltip().getText()).contains("EMPTY, 0.0% of"));
    }

    @Test
    void clickingATileOpensItAtTokenLevelWithEveryPair(FxRobot robot) {
        waitForCompiledCurrent();
        fxRun(() -> wb.grid().view().requestFocus());
        robot.clickOn(fx(() -> {
            var view = wb.grid().view();
            return view.localToScreen(view.tileCentre(new TileRef(9, 9)));
        }));
        waitUntil("the token view opens", () -> robot.lookup("#token-view").tryQuery().isPresent());
        String expected = fx(() -> TileInfo.of(wb.layout().compiled().layout(), 0, 9, 9).text());
        assertEquals(expected, text(robot, "#token-view-heading"));
        var tile = fx(() -> wb.layout().tokens(9, 9));
        for (int r = 0; r < tile.rows(); r += 7) {
            for (int c = 0; c < tile.columns(); c += 5) {
                assertEquals(c <= r, tile.attends(r, c), "causal pair " + r + "," + c + " of a diagonal tile");
            }
        }
        assertEquals(128L * 129 / 2, tile.info().attending());
    }

    @Test
    void wheelZoomNarrowsTheVisibleRangeAroundThePointerAndFitRestoresIt(FxRobot robot) {
        waitForCompiledCurrent();
        VisibleRange whole = fx(() -> wb.grid().view().visibleRangeProperty().get());
        assertEquals(new VisibleRange(0, 32, 0, 32), whole);
        Point2D p = fx(() -> {
            var view = wb.grid().view();
            return view.localToScreen(view.tileCentre(new TileRef(24, 8)));
        });
        // a positive wheel delta (the wheel turned away from the user) zooms in; Monocle's robot sends it for DOWN
        robot.moveTo(p).scroll(8, VerticalDirection.DOWN);
        waitUntil("the view zooms", () -> !wb.grid().view().visibleRangeProperty().get().equals(whole));
        VisibleRange zoomed = fx(() -> wb.grid().view().visibleRangeProperty().get());
        assertTrue(zoomed.tiles() < whole.tiles(), zoomed.toString());
        assertTrue(zoomed.qFrom() <= 24 && 24 < zoomed.qTo() && zoomed.kvFrom() <= 8 && 8 < zoomed.kvTo(),
                "the tile under the pointer stays in view: " + zoomed);
        assertNotEquals("", text(robot, "#visible-range"));
        robot.clickOn("#fit");
        waitUntil("fit shows the whole grid", () -> wb.grid().view().visibleRangeProperty().get().equals(whole));
    }

    @Test
    void undoAndRedoWalkEveryEditBackAndForth(FxRobot robot) {
        waitForCompiledCurrent();
        Mask start = config().mask();
        robot.clickOn("#add-sinks");
        Mask withSinks = config().mask();
        robot.clickOn("#add-dilated");
        Mask withBoth = config().mask();
        assertEquals(Mask.And.of(new Mask.Causal(0), new Mask.Sinks(4), new Mask.Dilated(2)), withBoth);
        robot.clickOn("#mask-tree");
        robot.press(KeyCode.CONTROL, KeyCode.Z).release(KeyCode.Z, KeyCode.CONTROL);
        assertEquals(withSinks, config().mask());
        robot.press(KeyCode.CONTROL, KeyCode.Z).release(KeyCode.Z, KeyCode.CONTROL);
        assertEquals(start, config().mask());
        robot.press(KeyCode.CONTROL, KeyCode.SHIFT, KeyCode.Z).release(KeyCode.Z, KeyCode.SHIFT, KeyCode.CONTROL);
        assertEquals(withSinks, config().mask());
        robot.press(KeyCode.CONTROL, KeyCode.SHIFT, KeyCode.Z).release(KeyCode.Z, KeyCode.SHIFT, KeyCode.CONTROL);
        assertEquals(withBoth, config().mask());
        waitForCompiledCurrent();
        assertEquals(count(BoundMask.bind(withBoth, config().dims()).compile(128, 128).count(TileClass.FULL)),
                text(robot, "#count-full"));
    }
}
