package saw.ui;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.beans.binding.Bindings;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import saw.ui.composer.ComposerView;
import saw.ui.composer.SizesBar;
import saw.ui.grid.GridPanel;
import saw.ui.grid.TileRef;
import saw.ui.grid.TokenView;
import saw.ui.inspect.InspectorView;
import saw.ui.model.ComposerModel;
import saw.engine.config.MaskConfig;
import saw.ui.model.LayoutModel;
import saw.ui.model.TokenTile;

/**
 * The workbench window: builds the view-models and the views, and wires menus and shortcuts to them. Everything
 * slow (compiling, files, runs) goes to one pool of daemon worker threads; the FX thread only renders.
 */
public final class Workbench {
    /** The stylesheet every saw window uses. */
    public static final String STYLESHEET = Workbench.class.getResource("saw.css").toExternalForm();

    private final Stage stage;
    private final ExecutorService workers;
    private final ComposerModel composer;
    private final LayoutModel layout;
    private final GridPanel grid;
    private final InspectorView inspector;
    private final BorderPane root = new BorderPane();
    private final Label status = new Label();
    private final List<Stage> tokenViews = new ArrayList<>();

    public Workbench(Stage stage, MaskConfig initial) {
        this.stage = stage;
        this.workers = Executors.newCachedThreadPool(daemonThreads());
        this.composer = new ComposerModel(initial);
        this.layout = new LayoutModel(composer.compositionProperty(), workers);
        this.grid = new GridPanel(layout);
        this.inspector = new InspectorView(layout);

        ComposerView composerView = new ComposerView(composer);
        TabPane centre = new TabPane(tab("Grid", grid));
        centre.setId("centre-tabs");
        SplitPane body = new SplitPane(composerView, centre, inspector);
        body.setDividerPositions(0.24, 0.78);
        SplitPane.setResizableWithParent(composerView, false);
        SplitPane.setResizableWithParent(inspector, false);

        VBox top = new VBox(menus(), pad(new SizesBar(composer, layout)));
        root.setTop(top);
        root.setCenter(body);
        root.setBottom(statusBar());
        root.setId("workbench");

        grid.view().setOnOpen(this::openTile);
        grid.view().setOnStroke(this::paint);
        grid.brushButton().disableProperty().bind(Bindings.createBooleanBinding(() -> !composer.canPaint(),
                composer.selectionProperty(), composer.compositionProperty()));
        grid.brushButton().disableProperty().addListener((o, was, is) -> {
            if (is) {
                grid.brushButton().setSelected(false);
            }
        });

        Scene scene = new Scene(root, 1360, 860);
        scene.getStylesheets().add(STYLESHEET);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.Y, KeyCombination.SHORTCUT_DOWN), composer::redo);
        scene.setOnKeyPressed(e -> {
            if (e.getTarget() instanceof javafx.scene.control.TextInputControl) {
                return;
            }
            if (e.getCode() == KeyCode.F && !e.isShortcutDown()) {
                grid.view().fit();
            } else if (e.getCode() == KeyCode.B && !e.isShortcutDown() && !grid.brushButton().isDisabled()) {
                grid.brushButton().setSelected(!grid.brushButton().isSelected());
            }
        });
        stage.setScene(scene);
        stage.titleProperty().bind(Bindings.createStringBinding(() -> "saw \u2014 " + composer.composition().name()
                + (composer.history().dirtyProperty().get() ? " *" : ""), composer.compositionProperty(),
                composer.history().dirtyProperty()));
        stage.setOnHidden(e -> close());
    }

    public Parent root() {
        return root;
    }

    public Stage stage() {
        return stage;
    }

    public ComposerModel composer() {
        return composer;
    }

    public LayoutModel layout() {
        return layout;
    }

    public GridPanel grid() {
        return grid;
    }

    /** Stops the worker threads (they are daemons, so a window closed without this does not keep the JVM up). */
    public void close() {
        workers.shutdownNow();
        tokenViews.forEach(Stage::close);
    }

    private MenuBar menus() {
        Menu file = new Menu("File");
        Menu edit = new Menu("Edit");
        MenuItem undo = item("Undo", "undo", new KeyCodeCombination(KeyCode.Z, KeyCombination.SHORTCUT_DOWN), composer::undo);
        undo.textProperty().bind(Bindings.concat("Undo ", composer.history().undoNameProperty()));
        undo.disableProperty().bind(composer.history().canUndoProperty().not());
        MenuItem redo = item("Redo", "redo", new KeyCodeCombination(KeyCode.Z, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN), composer::redo);
        redo.textProperty().bind(Bindings.concat("Redo ", composer.history().redoNameProperty()));
        redo.disableProperty().bind(composer.history().canRedoProperty().not());
        edit.getItems().addAll(undo, redo, new SeparatorMenuItem(),
                item("Delete node", "menu-delete", null, composer::delete));
        Menu view = new Menu("View");
        view.getItems().addAll(item("Fit grid", "menu-fit", null, () -> grid.view().fit()),
                item("Zoom in", "menu-zoom-in", new KeyCodeCombination(KeyCode.EQUALS, KeyCombination.SHORTCUT_DOWN),
                        () -> grid.view().zoom(2)),
                item("Zoom out", "menu-zoom-out", new KeyCodeCombination(KeyCode.MINUS, KeyCombination.SHORTCUT_DOWN),
                        () -> grid.view().zoom(0.5)));
        MenuBar bar = new MenuBar(file, edit, view);
        bar.setId("menu-bar");
        return bar;
    }

    static MenuItem item(String text, String id, KeyCombination key, Runnable action) {
        MenuItem m = new MenuItem(text);
        m.setId(id);
        if (key != null) {
            m.setAccelerator(key);
        }
        m.setOnAction(e -> action.run());
        return m;
    }

    private HBox statusBar() {
        status.setId("status");
        Label problems = new Label();
        problems.setId("problem-count");
        problems.getStyleClass().add("error");
        problems.textProperty().bind(Bindings.createStringBinding(() -> {
            int n = composer.problemsProperty().get().size();
            return n == 0 ? "" : n + (n == 1 ? " problem" : " problems") + ": the grid shows the last valid mask";
        }, composer.problemsProperty()));
        status.textProperty().bind(Bindings.createStringBinding(() -> {
            if (layout.busyProperty().get()) {
                return "compiling\u2026";
            }
            if (!layout.failureProperty().get().isEmpty()) {
                return "compile failed: " + layout.failureProperty().get();
            }
            LayoutModel.Compiled c = layout.compiled();
            return c == null ? "" : String.format(java.util.Locale.ROOT, "compiled %s in %.1f ms",
                    c.composition().name(), c.compileMillis());
        }, layout.busyProperty(), layout.failureProperty(), layout.compiledProperty()));
        Region spring = new Region();
        HBox.setHgrow(spring, Priority.ALWAYS);
        HBox bar = new HBox(status, problems, spring);
        bar.getStyleClass().add("status-bar");
        return bar;
    }

    private void openTile(TileRef t) {
        TokenTile tile = layout.tokens(t.qBlock(), t.kvBlock());
        if (tile != null) {
            tokenViews.add(TokenView.open(stage, tile, 0xff0072b2, 0xfff4f4f2, List.of(STYLESHEET)));
        }
    }

    private void paint(List<TileRef> stroke) {
        LayoutModel.Compiled c = layout.compiled();
        if (c == null) {
            return;
        }
        var lay = c.layout();
        List<int[]> rects = new ArrayList<>();
        for (TileRef t : stroke) {
            rects.add(new int[] {lay.qStart(t.qBlock()), lay.qEnd(t.qBlock()), lay.kvStart(t.kvBlock()), lay.kvEnd(t.kvBlock())});
        }
        composer.paint(rects);
    }

    private static Tab tab(String name, javafx.scene.Node content) {
        Tab t = new Tab(name, content);
        t.setClosable(false);
        t.setId("tab-" + name.toLowerCase(java.util.Locale.ROOT));
        return t;
    }

    private static Region pad(Region r) {
        r.setStyle(null);
        VBox box = new VBox(r);
        box.getStyleClass().add("toolbar-row");
        return box;
    }

    private static java.util.concurrent.ThreadFactory daemonThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "saw-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
