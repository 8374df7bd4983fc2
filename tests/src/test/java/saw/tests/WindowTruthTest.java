package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.image.PixelReader;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import saw.engine.config.Presets;
import saw.engine.format.LayoutFormats;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.ui.Theme;
import saw.ui.files.FileAsker;
import saw.ui.files.SessionStore;
import saw.ui.grid.TileRef;
import saw.ui.grid.VisibleRange;
import saw.ui.model.Configs;
import saw.ui.model.Messages;
import saw.ui.model.NodePath;

/**
 * Issue 17: tiles visible at any scale, messages that stay true, long writes under control, windows that close, input
 * errors that say what is wrong, and a remembered theme, each through the real window.
 */
class WindowTruthTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    private static MaskConfig config(String name, int seq, Mask m) {
        return new MaskConfig(name, "", seq, seq, 1, 1, new BlockSize(128, 128), m);
    }

    private static final Mask WINDOW_AND_SINKS = Mask.Or.of(Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(256, 0)),
            new Mask.Sinks(6));

    private void openConfig(MaskConfig c) {
        fxRun(() -> wb.composer().open(c));
        waitForCompiledCurrent();
    }

    private MenuItem menuItem(FxRobot robot, String id) {
        return fx(() -> robot.lookup("#menu-bar").queryAs(MenuBar.class).getMenus().stream()
                .flatMap(m -> m.getItems().stream()).filter(i -> id.equals(i.getId())).findFirst().orElseThrow());
    }

    private Messages.Message message() {
        return fx(() -> wb.messages().currentProperty().get());
    }

    private static boolean near(int argb, int expected) {
        for (int shift = 0; shift <= 16; shift += 8) {
            if (Math.abs(((argb >> shift) & 0xff) - ((expected >> shift) & 0xff)) > 6) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aWindowAndSinksAtAMillionTokensShowInFullColourAndGoToPatternFindsThemFromAnEmptyView(FxRobot robot) {
        openConfig(config("window-sinks-1m", 1 << 20, WINDOW_AND_SINKS));
        int[] colours = fx(() -> wb.grid().view().classColors());
        int[] counts = fx(() -> {
            var view = wb.grid().view();
            view.layout();
            PixelReader px = view.snapshot(null, null).getPixelReader();
            var v = view.viewportProperty().get();
            // zoomed out, a pixel column holds the blocks whose start falls in it: block 0 is in the one holding x = 0
            int sinksX = (int) Math.floor(v.pixelX(0));
            int top = (int) Math.ceil(v.pixelY(0));
            int bottom = (int) Math.floor(v.pixelY(8192)) - 1;
            int sinks = 0;
            int diagonal = 0;
            for (int y = top; y <= bottom; y++) {
                if (!near(px.getArgb(sinksX, y), colours[0])) {
                    sinks++;
                }
                int x = (int) Math.floor(v.pixelX(v.gridY(y + 0.5)));
                boolean attended = false;
                for (int dx = -1; dx <= 1; dx++) {
                    int c = px.getArgb(x + dx, y);
                    attended |= near(c, colours[1]) || near(c, colours[2]);
                }
                diagonal += attended ? 1 : 0;
            }
            return new int[] {sinks, diagonal, bottom - top + 1};
        });
        assertTrue(counts[0] > counts[2] * 9 / 10, "the sinks column shows down the grid: " + counts[0] + " of " + counts[2]);
        assertTrue(counts[1] > counts[2] * 9 / 10, "the window shows in a class colour along the diagonal: " + counts[1]
                + " of " + counts[2]);

        fxRun(() -> wb.grid().view().show(new VisibleRange(4000, 4013, 100, 113)));
        waitUntil("the view holds no attended tile", () -> !wb.grid().view().showsAttendedProperty().get());
        assertTrue(fx(() -> robot.lookup("#go-to-pattern").query().isVisible()));
        assertTrue(fx(() -> robot.lookup("#minimap").query().isVisible()), "zoomed in, the minimap shows where the view is");
        robot.clickOn("#go-to-pattern");
        waitUntil("the view shows the pattern", () -> wb.grid().view().showsAttendedProperty().get());
        VisibleRange r = fx(() -> wb.grid().view().visibleRangeProperty().get());
        assertTrue(r.qFrom() > 3000 && r.qTo() < 5000, "the nearest pattern is the diagonal near q 4000: " + r);
        assertFalse(fx(() -> robot.lookup("#go-to-pattern").query().isVisible()));
    }

    @Test
    void theDarkThemeIsChosenInViewRecolorsTheGridAndIsRememberedForTheNextStart(FxRobot robot) throws Exception {
        waitForCompiledCurrent();
        int[] light = fx(() -> wb.grid().view().classColors());
        fxRun(() -> menuItem(robot, "menu-theme-dark").fire());
        waitUntil("the window turns dark", () -> wb.root().getStyleClass().contains("dark"));
        WaitForAsyncUtils.waitForFxEvents();
        int[] dark = fx(() -> {
            wb.root().applyCss();
            return wb.grid().view().classColors();
        });
        assertNotEquals(light[0], dark[0], "EMPTY tiles follow the theme");
        assertNotEquals(light[3], dark[3], "the outside follows the theme");
        waitUntil("the choice is saved", () -> new SessionStore(sessionDir).loadTheme().equals("dark"));
        Stage second = fx(Stage::new);
        var again = fx(() -> new saw.ui.Workbench(second, new SessionStore(sessionDir), asker));
        assertEquals(Theme.DARK, fx(() -> again.themeProperty().get()));
        fxRun(() -> {
            again.themeProperty().set(Theme.LIGHT);
            second.close();
        });
        waitUntil("the light theme is remembered", () -> new SessionStore(sessionDir).loadTheme().equals("light"));
    }

    @Test
    void messagesGoOnceTheyAreNoLongerTrue(FxRobot robot) {
        waitForCompiledCurrent();
        fxRun(() -> wb.files().openPreset(Presets.get("bigbird")));
        waitUntil("the preset banner shows", () -> message() != null && message().text().startsWith("Opened preset"));
        fxRun(() -> wb.files().newConfig());
        assertNull(message(), "File > New: the preset's banner goes");

        openConfig(config("big", 32768, new Mask.Causal(0)));
        int asked = asker.saveAsAsked;
        fxRun(() -> wb.files().exportLayout(LayoutFormats.byName("dense")));
        waitUntil("the dense export is refused", () -> message() != null && message().error());
        assertTrue(message().text().contains("dense export is limited"), message().text());
        assertEquals(asked, asker.saveAsAsked, "refused before the file chooser");
        fxRun(() -> wb.composer().setDims(new Dims(8192, 8192, 1, 1)));
        assertNull(message(), "the size is fixed: the refusal goes");

        fxRun(() -> wb.showTab("Run"));
        waitUntil("a backend is chosen", () -> wb.run().backendProperty().get() != null);
        fxRun(() -> {
            wb.run().warmupProperty().set(-1);
            wb.run().run(wb.composer().composition());
        });
        String refused = fx(() -> wb.run().statusProperty().get());
        assertTrue(refused.contains("warm-up") && !refused.contains("--"), "named as in the window: " + refused);
        fxRun(() -> wb.run().warmupProperty().set(1));
        assertEquals("", fx(() -> wb.run().statusProperty().get()), "fixed: the refusal goes");
        assertFalse(fx(() -> wb.run().failedProperty().get()));
    }

    @Test
    void openingAFlexExportOffersTheConfigBesideItOrABlockListImportInOneSentence(FxRobot robot) throws Exception {
        MaskConfig c = config("docs", 4096, Mask.And.of(new Mask.Causal(0), Mask.Documents.ofLengths(1000, 2000, 1096)));
        openConfig(c);
        Path export = sessionDir.resolve("docs-flex.json");
        asker.save = export;
        fxRun(() -> wb.files().exportLayout(LayoutFormats.byName("flex")));
        waitUntil("the export is written", () -> Files.exists(export) && message() != null && message().text().startsWith("Wrote"));

        fxRun(() -> wb.files().open(export));
        waitUntil("the export is recognised", () -> message() != null && message().text().contains("flex export"));
        Messages.Message m = message();
        assertFalse(m.error());
        assertFalse(m.text().contains("\n"), "one sentence: " + m.text());
        assertEquals(List.of("Import as block_list mask"), m.actions().stream().map(Messages.Action::label).toList());
        assertEquals(c, config(), "the open mask is untouched");

        Path saved = sessionDir.resolve("docs.json");
        saw.engine.config.ConfigWriter.write(c, saved);
        fxRun(() -> wb.files().open(export));
        waitUntil("the config beside it is offered", () -> message() != null && !message().actions().isEmpty()
                && message().actions().get(0).label().equals("Open docs.json"));

        robot.clickOn("#message-action-1");
        waitUntil("the layout is imported", () -> wb.composer().composition().mask() instanceof Mask.BlockList);
        waitForCompiledCurrent();
        TileGrid original = BoundMask.bind(c.mask(), c.dims()).compile(128, 128).grid(0);
        TileGrid imported = fx(() -> wb.layout().compiled().layout().grid(0));
        for (int q = 0; q < original.numQBlocks(); q++) {
            for (int k = 0; k < original.numKvBlocks(); k++) {
                boolean attends = original.classAt(q, k) != TileClass.EMPTY;
                assertEquals(attends ? TileClass.FULL : TileClass.EMPTY, imported.classAt(q, k), "tile " + q + "," + k);
            }
        }
        assertTrue(fx(() -> wb.composer().history().dirtyProperty().get()), "an import is unsaved");
    }

    @Test
    void aLargeExportIsConfirmedShowsProgressAndACancelLeavesNothingBehind(FxRobot robot) throws Exception {
        openConfig(config("window-1m", 1 << 20, WINDOW_AND_SINKS));
        Path folder = Files.createTempDirectory("saw-export");
        Path target = folder.resolve("big-flex.json");
        asker.save = target;
        asker.questions.clear();
        fxRun(() -> wb.files().exportLayout(LayoutFormats.byName("flex")));
        waitUntil("the write shows its progress", () -> wb.files().writeProgressProperty().get() > 0);
        assertEquals(1, asker.questions.size(), "the size was confirmed first");
        assertTrue(asker.questions.get(0).matches(".*takes up to [0-9.]+ (MiB|GiB).*"), asker.questions.get(0));
        assertTrue(fx(() -> robot.lookup("#write-cancel").query().isVisible()));
        robot.clickOn("#write-cancel");
        waitUntil("the write stops", () -> !wb.files().writingProperty().get());
        assertTrue(message().text().startsWith("Cancelled writing"), message().text());
        try (var left = Files.list(folder)) {
            assertEquals(List.of(), left.toList(), "nothing half-written is left");
        }

        asker.confirm = false;
        asker.questions.clear();
        int asked = asker.saveAsAsked;
        fxRun(() -> wb.files().exportLayout(LayoutFormats.byName("flex")));
        waitUntil("the size is asked about", () -> !asker.questions.isEmpty());
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(asked, asker.saveAsAsked, "declined: no file chooser");
        assertFalse(fx(() -> wb.files().writingProperty().get()));
    }

    @Test
    void dontSaveOnQuitDropsTheChangesForTheNextStart(FxRobot robot) {
        waitForCompiledCurrent();
        robot.clickOn("#add-sinks");
        waitForCompiledCurrent();
        MaskConfig edited = config();
        asker.unsaved = FileAsker.Unsaved.DISCARD;
        fxRun(() -> menuItem(robot, "menu-quit").fire());
        waitUntil("the window closes", () -> !stage.isShowing());
        MaskConfig next = new SessionStore(sessionDir).load().orElseThrow().config();
        assertNotEquals(edited, next, "the dropped edit does not come back");
        assertEquals(Configs.starter(), next);
        assertFalse(new SessionStore(sessionDir).load().orElseThrow().unsaved());
    }

    private long tokenWindows() {
        return fx(() -> Window.getWindows().stream().filter(w -> w.getScene() != null
                && w.getScene().getRoot().lookup("#token-view") != null && w.isShowing()).count());
    }

    @Test
    void theClickThatFocusesTheGridOpensNothingATileOpensOnceAndTileAndGalleryWindowsClose(FxRobot robot) {
        waitForCompiledCurrent();
        robot.clickOn("#mask-tree");
        var tile = fx(() -> {
            var view = wb.grid().view();
            return view.localToScreen(view.tileCentre(new TileRef(5, 5)));
        });
        robot.clickOn(tile);
        WaitForAsyncUtils.sleep(300, java.util.concurrent.TimeUnit.MILLISECONDS);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(0, tokenWindows(), "the first click only focuses the grid");
        assertTrue(fx(() -> stage.getScene().getFocusOwner() == wb.grid().view()),
                "the first click gives the grid the focus: " + fx(() -> String.valueOf(stage.getScene().getFocusOwner())));
        robot.clickOn(tile);
        waitUntil("the tile opens", () -> tokenWindows() == 1);
        fxRun(() -> stage.toFront());
        robot.clickOn(tile);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(1, tokenWindows(), "the same tile comes to the front, not a second window");
        Stage tokens = fx(() -> wb.openTile(new TileRef(5, 5)));
        fxRun(tokens::requestFocus);
        robot.type(KeyCode.ESCAPE);
        waitUntil("Escape closes the tile window", () -> tokenWindows() == 0);

        Stage gallery = fx(() -> wb.openGallery());
        fxRun(gallery::requestFocus);
        robot.type(KeyCode.ESCAPE);
        waitUntil("Escape closes the gallery", () -> !gallery.isShowing());
        Stage again = fx(() -> wb.openGallery());
        robot.clickOn(fx(() -> (Button) again.getScene().lookup("#gallery-close")));
        waitUntil("Close closes the gallery", () -> !again.isShowing());
    }

    @Test
    void exportSizesSayTheyAreUpdatingUntilTheNewLayoutsArrive(FxRobot robot) {
        waitForCompiledCurrent();
        waitUntil("the export sizes are in", () -> !robot.lookup("#formats-updating").query().isVisible());
        AtomicBoolean sawUpdating = new AtomicBoolean();
        fxRun(() -> wb.layout().compiledProperty().addListener((o, a, b) -> {
            Label updating = (Label) wb.root().lookup("#formats-updating");
            if (updating.isVisible() && wb.root().lookup("#formats").getOpacity() < 1) {
                sawUpdating.set(true);
            }
        }));
        fxRun(() -> wb.composer().setDims(new Dims(8192, 8192, 1, 1)));
        waitForCompiledCurrent();
        assertTrue(sawUpdating.get(), "when the new counts show, the old sizes are marked as updating");
        waitUntil("the new sizes arrive", () -> !robot.lookup("#formats-updating").query().isVisible()
                && wb.root().lookup("#formats").getOpacity() == 1);
    }

    @Test
    void inputErrorsSayWhatIsWrongInTheWindowsWords(FxRobot robot) {
        waitForCompiledCurrent();
        robot.clickOn("#add-sliding_window");
        waitForCompiledCurrent();
        type(robot, "#field-left", "99999999999");
        waitUntil("the error shows", () -> robot.lookup("#error-left").queryLabeled().isVisible());
        assertTrue(text(robot, "#error-left").contains("out of range"), text(robot, "#error-left"));

        type(robot, "#field-left", "700");
        waitForCompiledCurrent();
        CheckBox unbounded = fx(() -> (CheckBox) robot.lookup("#node-editor").lookup(".check-box").query());
        robot.clickOn(unbounded);
        waitForCompiledCurrent();
        assertEquals(-1, ((Mask.SlidingWindow) ((Mask.And) config().mask()).children().get(1)).left());
        robot.clickOn(fx(() -> (CheckBox) robot.lookup("#node-editor").lookup(".check-box").query()));
        waitForCompiledCurrent();
        assertEquals(700, ((Mask.SlidingWindow) ((Mask.And) config().mask()).children().get(1)).left(),
                "unticking brings back the value before");
        type(robot, "#field-left", "-1");
        waitUntil("a typed -1 is refused", () -> robot.lookup("#error-left").queryLabeled().isVisible());
        assertEquals(700, ((Mask.SlidingWindow) ((Mask.And) config().mask()).children().get(1)).left());

        type(robot, "#seq-q", "abc");
        waitUntil("the sizes error shows", () -> !text(robot, "#sizes-error").isEmpty());
        assertTrue(fx(() -> robot.lookup("#seq-q").query().getStyleClass().contains("invalid")));
        for (String untouched : List.of("#seq-kv", "#batch", "#heads")) {
            assertFalse(fx(() -> robot.lookup(untouched).query().getStyleClass().contains("invalid")), untouched);
        }

        fxRun(() -> wb.showTab("Run"));
        waitUntil("a backend is chosen", () -> wb.run().backendProperty().get() != null);
        fxRun(() -> wb.run().tilesProperty().set("100x64, 128x64, 7"));
        String problem = fx(() -> wb.run().tilesProblemProperty().get());
        assertTrue(problem.contains("'100x64'") && problem.contains("'7'") && !problem.contains("'128x64'"), problem);
        assertTrue(fx(() -> robot.lookup("#run-start").query().isDisabled()), "Run waits for good tile sizes");
        assertEquals(problem, text(robot, "#run-tiles-error"));
        assertFalse(fx(() -> ((Label) robot.lookup("#run-backend-note").query()).getText()).contains("--backend"));
    }

    @Test
    void groupsCountTheirChildrenAndSaveAsNamesAnUntitledMaskAfterItsFile(FxRobot robot) throws Exception {
        waitForCompiledCurrent();
        fxRun(() -> wb.composer().group(saw.ui.model.MaskEdits.Group.AND));
        fxRun(() -> wb.composer().selectionProperty().set(NodePath.ROOT));
        WaitForAsyncUtils.waitForFxEvents();
        String note = fx(() -> robot.lookup("#node-editor").query().lookupAll(".label").stream()
                .map(n -> ((Label) n).getText()).filter(t -> t != null && t.contains("A pair attends")).findFirst().orElse(""));
        assertTrue(note.startsWith("1 child."), note);

        Path file = sessionDir.resolve("mine.json");
        asker.save = file;
        fxRun(() -> wb.files().saveAs());
        waitUntil("saved", () -> Files.exists(file) && !wb.composer().history().dirtyProperty().get());
        assertEquals("mine", config().name());
        assertEquals("mine", saw.engine.config.ConfigReader.read(file).name());
    }

    @Test
    void aNewRunAsksBeforeItReplacesTheRowsInTheTable(FxRobot robot) {
        openConfig(config("small", 256, new Mask.Causal(0)));
        fxRun(() -> wb.showTab("Run"));
        waitUntil("a backend is chosen", () -> wb.run().backendProperty().get() != null);
        fxRun(() -> {
            var run = wb.run();
            run.backendProperty().set(run.backends().stream().filter(b -> b.name().equals("cpu")).findFirst().orElseThrow());
            run.tilesProperty().set("64x64");
            run.headsProperty().set(1);
            run.warmupProperty().set(0);
            run.repsProperty().set(1);
            run.run(wb.composer().composition());
        });
        waitUntil("the run finishes", () -> !wb.run().runningProperty().get() && !wb.run().rows().isEmpty());
        int rows = fx(() -> wb.run().rows().size());
        asker.confirm = false;
        asker.questions.clear();
        robot.clickOn("#run-start");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(1, asker.questions.size(), "asked before the rows go");
        assertTrue(asker.questions.get(0).contains(rows + (rows == 1 ? " row" : " rows")), asker.questions.get(0));
        assertFalse(fx(() -> wb.run().runningProperty().get()), "declined: nothing runs");
        assertEquals(rows, fx(() -> wb.run().rows().size()), "declined: the rows stay");
    }

    @Test
    void theLegendListsEveryMarkTheGridDraws(FxRobot robot) {
        waitForCompiledCurrent();
        java.util.function.Supplier<List<String>> shown = () -> fx(() -> robot.lookup("#legend").query()
                .lookupAll(".label").stream().filter(javafx.scene.Node::isVisible).map(n -> ((Label) n).getText()).toList());
        assertEquals(List.of("EMPTY", "PARTIAL", "FULL", "outside"), shown.get());
        robot.clickOn("#show-extra");
        waitUntil("the extra tiles' entry shows", () -> robot.lookup("#legend").query().lookupAll(".label").stream()
                .anyMatch(n -> n.isVisible() && ((Label) n).getText().equals("extra (ejkernel)")));
        int[] colours = fx(() -> wb.grid().view().classColors());
        javafx.scene.paint.Color mark = fx(() -> (javafx.scene.paint.Color) ((javafx.scene.layout.Region) robot.lookup("#legend")
                .query().lookup(".legend-swatch.mark")).getBorder().getStrokes().get(0).getTopStroke());
        javafx.scene.paint.Color partial = javafx.scene.paint.Color.rgb((colours[1] >> 16) & 0xff, (colours[1] >> 8) & 0xff,
                colours[1] & 0xff);
        double hues = Math.abs(mark.getHue() - partial.getHue());
        assertTrue(Math.min(hues, 360 - hues) > 60, "the extra-tile outline's hue is far from PARTIAL's: " + mark + " vs " + partial);
    }
}
