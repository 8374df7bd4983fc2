package saw.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.util.WaitForAsyncUtils;
import saw.engine.config.MaskConfig;
import saw.ui.Workbench;
import saw.ui.files.SessionStore;

/**
 * Opens the real workbench window (headless under Monocle in the build) with a fresh session folder and scripted
 * file choosers, and gives tests ways to wait for the window to catch up without sleeping.
 */
@ExtendWith(ApplicationExtension.class)
abstract class WorkbenchFixture {
    static final long TIMEOUT_S = 60;
    Workbench wb;
    Stage stage;
    Path sessionDir;
    final ScriptedAsker asker = new ScriptedAsker();

    /** Each test class calls this from its {@code @Start} method (TestFX looks for it in the class itself). */
    void open(Stage stage) throws Exception {
        this.stage = stage;
        sessionDir = Files.createTempDirectory("saw-session");
        wb = new Workbench(stage, new SessionStore(sessionDir), asker);
        stage.show();
    }

    /** A headless screen large enough for the window at its usual size and at 1920x1080 (Monocle's default is 1280x800). */
    @BeforeAll
    static void screen() {
        System.setProperty("headless.geometry", "1920x1200-32");
    }

    @AfterEach
    void closeWindow() throws Exception {
        WaitForAsyncUtils.asyncFx(() -> stage.close()).get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** Evaluates on the FX thread. */
    static <T> T fx(Callable<T> c) {
        try {
            return WaitForAsyncUtils.asyncFx(c).get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void fxRun(Runnable r) {
        fx(() -> {
            r.run();
            return null;
        });
    }

    /** Waits until a condition (checked on the FX thread) holds. */
    static void waitUntil(String what, Callable<Boolean> condition) {
        waitUntil(what, condition, () -> "");
    }

    /** Waits as {@link #waitUntil(String, Callable)}; on time-out the message adds {@code detail}. */
    static void waitUntil(String what, Callable<Boolean> condition, Callable<String> detail) {
        try {
            WaitForAsyncUtils.waitFor(TIMEOUT_S, TimeUnit.SECONDS, () -> fx(condition));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out waiting until " + what + " " + fx(detail), e);
        }
    }

    /** Waits until the layout shown is the compiled form of the config being edited. */
    void waitForCompiledCurrent() {
        waitUntil("the grid shows the current config", () -> {
            var c = wb.layout().compiled();
            return c != null && c.composition().equals(wb.composer().composition()) && !wb.layout().busyProperty().get();
        });
        WaitForAsyncUtils.waitForFxEvents();
    }

    /** Replaces the text of a field and presses Enter. */
    static void type(FxRobot robot, String query, String text) {
        robot.clickOn(query);
        robot.press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL);
        robot.write(text);
        robot.type(KeyCode.ENTER);
    }

    MaskConfig config() {
        return fx(() -> wb.composer().composition());
    }

    static String text(FxRobot robot, String query) {
        Node n = robot.lookup(query).query();
        return fx(() -> ((Label) n).getText());
    }
}
