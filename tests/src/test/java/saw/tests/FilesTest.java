package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigReader;
import saw.engine.config.MaskConfig;
import saw.engine.config.Presets;
import saw.ui.model.Messages;

class FilesTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    private static void shortcut(FxRobot robot, KeyCode... keys) {
        KeyCode[] all = new KeyCode[keys.length + 1];
        all[0] = KeyCode.CONTROL;
        System.arraycopy(keys, 0, all, 1, keys.length);
        robot.press(all);
        for (int i = all.length - 1; i >= 0; i--) {
            robot.release(all[i]);
        }
    }

    @Test
    void savingThenReopeningGivesAnEqualConfig(FxRobot robot) throws Exception {
        waitForCompiledCurrent();
        fxRun(() -> wb.files().openPreset(Presets.get("packed-documents")));
        robot.clickOn("#add-sinks");
        waitForCompiledCurrent();
        MaskConfig edited = config();
        Path file = sessionDir.resolve("saved.json");
        asker.save = file;
        robot.clickOn("#mask-tree");
        shortcut(robot, KeyCode.S);
        waitUntil("the file is saved", () -> !wb.composer().history().dirtyProperty().get());
        assertEquals(edited, ConfigReader.read(file), "the file holds what was on screen");

        shortcut(robot, KeyCode.N);
        waitUntil("a new config is open", () -> !wb.composer().composition().equals(edited));
        asker.open = file;
        shortcut(robot, KeyCode.O);
        waitUntil("the file is open again", () -> wb.composer().composition().equals(edited));
        assertEquals(file, fx(() -> wb.files().fileProperty().get()));
        assertEquals(file.toAbsolutePath().normalize(), fx(() -> wb.files().recentProperty().get().get(0)));
        waitForCompiledCurrent();
        assertTrue(fx(() -> stage.getTitle()).contains("saved.json"));
    }

    @Test
    void aBadFileShowsWhatIsWrongAndWhereAndKeepsTheOpenMask(FxRobot robot) throws Exception {
        waitForCompiledCurrent();
        robot.clickOn("#add-dilated");
        waitForCompiledCurrent();
        MaskConfig before = config();
        var layoutBefore = fx(() -> wb.layout().compiled());
        Path bad = sessionDir.resolve("bad.json");
        Files.writeString(bad, "{ \"schema\": \"saw.mask/1\", \"name\": \"bad\", \"seq_len_q\": 1024, \"seq_len_kv\": 1024,\n"
                + "  \"batch\": 1, \"heads\": 1, \"block\": { \"q\": 100, \"kv\": 128 },\n"
                + "  \"mask\": { \"sliding_window\": { \"left\": \"wide\" } } }\n", StandardCharsets.UTF_8);
        String cliMessage;
        try {
            ConfigReader.read(bad);
            throw new AssertionError("the test file should not load");
        } catch (ConfigException e) {
            cliMessage = e.getMessage();
        }
        asker.open = bad;
        asker.unsaved = saw.ui.files.FileAsker.Unsaved.DISCARD;
        robot.clickOn("#mask-tree");
        shortcut(robot, KeyCode.O);
        waitUntil("the error shows", () -> {
            Messages.Message m = wb.messages().currentProperty().get();
            return m != null && m.error();
        });
        assertEquals(cliMessage, text(robot, "#message"));
        assertTrue(cliMessage.contains("bad.json:2:") && cliMessage.contains("/block/q"), cliMessage);
        assertEquals(before, config(), "the open mask is untouched");
        assertTrue(fx(() -> wb.layout().compiled()) == layoutBefore, "the grid is untouched");
        assertNotEquals(bad, fx(() -> wb.files().fileProperty().get()));
    }

    @Test
    void exportingALayoutWritesWhatTheFormatWritesForTheCompiledLayout(FxRobot robot) throws Exception {
        waitForCompiledCurrent();
        robot.clickOn("#add-sliding_window");
        waitForCompiledCurrent();
        for (String name : java.util.List.of("flex", "ejkernel")) {
            Path out = sessionDir.resolve("layout-" + name + ".json");
            asker.save = out;
            fxRun(() -> wb.files().exportLayout(saw.engine.format.LayoutFormats.byName(name)));
            waitUntil(name + " is written", () -> Files.exists(out) && wb.messages().currentProperty().get() != null
                    && wb.messages().currentProperty().get().text().contains(out.toString()));
            var expected = new java.io.ByteArrayOutputStream();
            var layout = saw.engine.mask.BoundMask.bind(config().mask(), config().dims()).compile(128, 128);
            saw.engine.format.LayoutFormats.byName(name).write(layout, expected);
            assertEquals(expected.toString(StandardCharsets.UTF_8), Files.readString(out, StandardCharsets.UTF_8));
        }
    }

    @Test
    void unsavedChangesAreAskedAboutBeforeTheyWouldBeLost(FxRobot robot) {
        waitForCompiledCurrent();
        robot.clickOn("#add-sinks");
        MaskConfig edited = config();
        asker.unsaved = saw.ui.files.FileAsker.Unsaved.CANCEL;
        robot.clickOn("#mask-tree");
        shortcut(robot, KeyCode.N);
        assertEquals(1, asker.unsavedAsked);
        assertEquals(edited, config(), "cancel keeps the work");
        asker.unsaved = saw.ui.files.FileAsker.Unsaved.DISCARD;
        shortcut(robot, KeyCode.N);
        assertEquals(2, asker.unsavedAsked);
        assertNotEquals(edited, config());
    }

    @Test
    void afterACrashTheAutosavedMaskComesBackWithANote(FxRobot robot) throws Exception {
        Path crashed = Files.createTempDirectory("saw-crashed");
        MaskConfig lost = Presets.get("streamingllm");
        new saw.ui.files.SessionStore(crashed).save(lost, null, true, java.util.List.of(), false, 0, 0);
        Stage second = fx(Stage::new);
        var again = fx(() -> new saw.ui.Workbench(second, new saw.ui.files.SessionStore(crashed), asker));
        fxRun(second::show);
        assertEquals(lost, fx(() -> again.composer().composition()));
        assertTrue(fx(() -> again.composer().history().dirtyProperty().get()));
        assertTrue(fx(() -> again.messages().currentProperty().get().text()).contains("did not close cleanly"));
        fxRun(second::close);
        assertTrue(Files.readString(crashed.resolve("session.json")).contains("\"clean_exit\" : true"));
    }

    @Test
    void thePresetGalleryDrawsEveryPresetAndOpensTheOneClicked(FxRobot robot) {
        waitForCompiledCurrent();
        fxRun(() -> robot.lookup("#menu-bar").queryAs(javafx.scene.control.MenuBar.class).getMenus().stream()
                .flatMap(m -> m.getItems().stream()).filter(i -> "menu-gallery".equals(i.getId())).findFirst()
                .orElseThrow().fire());
        waitUntil("every thumbnail is drawn", () -> {
            var views = robot.lookup("#preset-gallery .image-view").queryAllAs(javafx.scene.image.ImageView.class);
            return views.size() == Presets.all().size() && views.stream().allMatch(v -> v.getImage() != null);
        });
        // the card is in the last row, below the fold of the gallery's scroll pane, where a user scrolls to it
        fxRun(() -> robot.lookup("#preset-gallery").queryAs(javafx.scene.control.ScrollPane.class).setVvalue(1));
        WaitForAsyncUtils.waitForFxEvents();
        robot.clickOn("#preset-nsa-block-list");
        waitUntil("the preset is open", () -> wb.composer().composition().equals(Presets.get("nsa-block-list")));
        waitForCompiledCurrent();
    }

    @Test
    void theSessionComesBackInTheNextWindow(FxRobot robot) throws Exception {
        waitForCompiledCurrent();
        robot.clickOn("#add-chunked_causal");
        MaskConfig edited = config();
        fxRun(() -> stage.close());
        Stage second = fx(Stage::new);
        var again = fx(() -> new saw.ui.Workbench(second, new saw.ui.files.SessionStore(sessionDir), asker));
        assertEquals(edited, fx(() -> again.composer().composition()));
        assertTrue(fx(() -> again.composer().history().dirtyProperty().get()), "still marked unsaved");
        fxRun(second::close);
    }
}
