package saw.tests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import javafx.scene.Parent;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import saw.ui.Theme;
import saw.ui.grid.TileRef;
import saw.ui.model.Primitive;

/**
 * Nothing is cut off: every tab (whatever tabs exist), the editor of every primitive, the preset gallery and a
 * token view, at 1280x800 and at 1920x1080, light and dark, show every control's full text, no toolbar item
 * behind an overflow button, and no control over another (see {@link LayoutCheck}).
 */
class LayoutTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    @Test
    void nothingIsCutOffAt1280x800() {
        checkEverything(1280, 800, Theme.LIGHT);
    }

    @Test
    void nothingIsCutOffAt1920x1080InTheDarkTheme() {
        checkEverything(1920, 1080, Theme.DARK);
    }

    private void checkEverything(int width, int height, Theme theme) {
        fxRun(() -> {
            wb.themeProperty().set(theme);
            stage.setX(0);
            stage.setY(0);
            stage.setWidth(width);
            stage.setHeight(height);
        });
        waitForCompiledCurrent();
        List<String> problems = new ArrayList<>();
        String size = width + "x" + height;
        TabPane tabs = fx(() -> (TabPane) wb.root().lookup("#centre-tabs"));
        int tabCount = fx(() -> tabs.getTabs().size());
        for (int i = 0; i < tabCount; i++) {
            int index = i;
            String name = fx(() -> {
                Tab t = tabs.getTabs().get(index);
                tabs.getSelectionModel().select(t);
                return t.getText();
            });
            settle();
            problems.addAll(check(stage, size + ", tab " + name));
        }
        fxRun(() -> wb.showTab("Grid"));
        for (Primitive p : Primitive.values()) {
            fxRun(() -> wb.composer().addPrimitive(p));
            settle();
            problems.addAll(check(stage, size + ", editor of " + p.key()));
            fxRun(() -> wb.composer().undo());
        }
        Stage gallery = fx(() -> wb.openGallery());
        settle();
        problems.addAll(check(gallery, size + ", preset gallery"));
        fxRun(gallery::close);
        Stage tile = fx(() -> wb.openTile(new TileRef(3, 3)));
        settle();
        problems.addAll(check(tile, size + ", token view"));
        fxRun(tile::close);
        assertTrue(problems.isEmpty(), problems.size() + " layout problems:\n" + String.join("\n", problems));
    }

    private static List<String> check(Window w, String where) {
        return fx(() -> {
            Parent root = w.getScene().getRoot();
            root.applyCss();
            root.layout();
            return LayoutCheck.problems(root, where);
        });
    }

    private static void settle() {
        WaitForAsyncUtils.waitForFxEvents(4);
        WaitForAsyncUtils.sleep(150, java.util.concurrent.TimeUnit.MILLISECONDS);
        WaitForAsyncUtils.waitForFxEvents(2);
    }
}
