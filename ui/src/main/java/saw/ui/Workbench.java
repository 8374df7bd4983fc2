package saw.ui;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
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
import saw.engine.config.Preset;
import saw.engine.config.Presets;
import saw.engine.format.LayoutFormat;
import saw.engine.format.LayoutFormats;
import saw.ui.composer.ComposerView;
import saw.ui.composer.PresetGallery;
import saw.ui.composer.SizesBar;
import saw.ui.files.DialogAsker;
import saw.ui.files.FileActions;
import saw.ui.files.FileAsker;
import saw.ui.files.SessionStore;
import saw.ui.grid.GridPanel;
import saw.ui.grid.TileRef;
import saw.ui.grid.TokenView;
import saw.ui.inspect.InspectorView;
import saw.ui.model.ComposerModel;
import saw.ui.model.Configs;
import saw.ui.model.FormatsModel;
import saw.ui.model.LayoutModel;
import saw.ui.model.Messages;
import saw.ui.model.TokenTile;
import saw.ui.run.BackendChoice;
import saw.ui.run.ChartsModel;
import saw.ui.run.ChartsView;
import saw.ui.run.RunBackends;
import saw.ui.run.RunModel;
import saw.ui.run.RunView;

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
    private final FormatsModel formats;
    private final Messages messages = new Messages();
    private final FileActions files;
    private final GridPanel grid;
    private final InspectorView inspector;
    private final RunModel run;
    private final ChartsModel charts;
    private final TabPane centre;
    private final BorderPane root = new BorderPane();
    private final List<Stage> windows = new ArrayList<>();
    private boolean closing;

    /**
     * Opens the window on {@code stage}, restoring the session kept in {@code session}.
     *
     * @param asker file choosers and questions; null for the window's own dialogs
     */
    public Workbench(Stage stage, SessionStore session, FileAsker asker) {
        this.stage = stage;
        this.workers = Executors.newCachedThreadPool(daemonThreads());
        var lastSession = java.util.concurrent.CompletableFuture.supplyAsync(session::load, workers);
        this.composer = new ComposerModel(Configs.starter());
        java.util.concurrent.Executor work = this::submit;
        this.layout = new LayoutModel(composer.compositionProperty(), work);
        this.formats = new FormatsModel(layout, work);
        FileAsker dialogs = asker != null ? asker : new DialogAsker(stage);
        this.files = new FileActions(composer, layout, work, messages, session, dialogs);
        this.grid = new GridPanel(layout, formats);
        this.inspector = new InspectorView(layout, formats);
        this.run = new RunModel(work);
        this.charts = new ChartsModel(run, work);
        saw.ui.nsa.NsaModel nsa = new saw.ui.nsa.NsaModel(layout, work);

        ComposerView composerView = new ComposerView(composer);
        centre = new TabPane(tab("Grid", grid), lazyTab("Run", () -> {
            detectBackends();
            return new RunView(run, composer);
        }), lazyTab("Charts", () -> new ChartsView(charts, dialogs, messages, files::folder)),
                lazyTab("Ring", () -> new saw.ui.ring.RingView(new saw.ui.ring.RingViewModel(layout, work))),
                lazyTab("NSA", () -> new saw.ui.nsa.NsaView(nsa)));
        inspector.extraSections().getChildren().add(new saw.ui.nsa.NsaStatsPane(nsa));
        centre.setId("centre-tabs");
        SplitPane body = new SplitPane(composerView, centre, inspector);
        body.setDividerPositions(0.24, 0.78);
        SplitPane.setResizableWithParent(composerView, false);
        SplitPane.setResizableWithParent(inspector, false);

        VBox top = new VBox(menus(), new SizesBar(composer, layout), messageBar());
        top.getStyleClass().add("top-bar");
        root.setTop(top);
        root.setCenter(body);
        root.setBottom(statusBar());
        root.setId("workbench");

        grid.view().setOnOpen(this::openTile);
        grid.view().setOnStroke(this::paint);
        grid.exportPngButton().setOnAction(e -> files.exportPng(grid.view().snapshot(null, null)));
        grid.brushButton().disableProperty().bind(Bindings.createBooleanBinding(() -> !composer.canPaint(),
                composer.selectionProperty(), composer.compositionProperty()));
        grid.brushButton().disableProperty().addListener((o, was, is) -> {
            if (is) {
                grid.brushButton().setSelected(false);
            }
        });

        var screen = javafx.stage.Screen.getPrimary().getVisualBounds();
        Scene scene = new Scene(root, Math.min(1360, screen.getWidth()), Math.min(860, screen.getHeight()));
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
                + (files.fileProperty().get() == null ? "" : " (" + files.fileProperty().get().getFileName() + ")")
                + (composer.history().dirtyProperty().get() ? " *" : ""), composer.compositionProperty(),
                composer.history().dirtyProperty(), files.fileProperty()));
        stage.setOnCloseRequest(e -> {
            if (!closing) {
                e.consume();
                files.whenChangesAreSafe(this::closeWindow);
            }
        });
        stage.setOnHidden(e -> close());
        files.restore(Configs.starter(), lastSession.join());
    }

    /** The window's default session folder and dialogs. */
    public Workbench(Stage stage) {
        this(stage, new SessionStore(SessionStore.defaultFolder()), null);
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

    public FileActions files() {
        return files;
    }

    public Messages messages() {
        return messages;
    }

    public RunModel run() {
        return run;
    }

    public ChartsModel charts() {
        return charts;
    }

    /** Selects the tab "Grid", "Run" or "Charts". */
    public void showTab(String name) {
        centre.getTabs().stream().filter(t -> t.getText().equals(name)).findFirst()
                .ifPresent(t -> centre.getSelectionModel().select(t));
    }

    private void detectBackends() {
        javafx.concurrent.Task<List<BackendChoice>> probe = new javafx.concurrent.Task<>() {
            @Override
            protected List<BackendChoice> call() {
                return RunBackends.detect();
            }
        };
        probe.setOnSucceeded(e -> {
            run.backends().setAll(probe.getValue());
            run.backendProperty().set(probe.getValue().get(0));
        });
        probe.setOnFailed(e -> messages.error("Could not look for backends: " + probe.getException()));
        submit(probe);
    }

    /** Saves the session as closed cleanly and stops the worker threads. */
    public void close() {
        if (workers.isShutdown()) {
            return;
        }
        files.autosave(true);
        workers.shutdownNow();
        windows.forEach(Stage::close);
    }

    /** Runs work on the worker threads; after the window closed, timers that still fire submit nothing. */
    private void submit(Runnable task) {
        try {
            workers.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the window has closed and its workers are gone: the work is no longer wanted
        }
    }

    private void closeWindow() {
        closing = true;
        stage.close();
    }

    private MenuBar menus() {
        Menu file = new Menu("File");
        Menu recent = new Menu("Open recent");
        recent.setId("menu-recent");
        files.recentProperty().addListener((o, old, list) -> {
            recent.getItems().clear();
            for (Path p : list) {
                recent.getItems().add(item(p.toString(), null, null, () -> files.open(p)));
            }
        });
        Menu export = new Menu("Export layout as");
        export.setId("menu-export");
        for (LayoutFormat f : LayoutFormats.all()) {
            export.getItems().add(item(f.name() + " \u2014 " + f.description(), "export-" + f.name(), null,
                    () -> files.exportLayout(f)));
        }
        file.getItems().addAll(
                item("New", "menu-new", new KeyCodeCombination(KeyCode.N, KeyCombination.SHORTCUT_DOWN), files::newConfig),
                item("Open\u2026", "menu-open", new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN), files::open),
                recent, new SeparatorMenuItem(),
                item("Save", "menu-save", new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN), files::save),
                item("Save as\u2026", "menu-save-as", new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN,
                        KeyCombination.SHIFT_DOWN), files::saveAs),
                new SeparatorMenuItem(), export,
                item("Export grid as PNG\u2026", "menu-export-png", null,
                        () -> files.exportPng(grid.view().snapshot(null, null))),
                new SeparatorMenuItem(),
                item("Quit", "menu-quit", new KeyCodeCombination(KeyCode.Q, KeyCombination.SHORTCUT_DOWN),
                        () -> files.whenChangesAreSafe(this::closeWindow)));

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

        Menu presets = new Menu("Presets");
        presets.setId("menu-presets");
        presets.getItems().add(item("Gallery\u2026", "menu-gallery", null, this::openGallery));
        presets.getItems().add(new SeparatorMenuItem());
        presets.setOnShowing(e -> {
            if (presets.getItems().size() == 2) {
                for (Preset p : Presets.all()) {
                    presets.getItems().add(item(p.name(), "preset-menu-" + p.name(), null, () -> files.openPreset(p.config())));
                }
            }
        });
        MenuBar bar = new MenuBar(file, edit, view, presets);
        bar.setId("menu-bar");
        return bar;
    }

    static MenuItem item(String text, String id, KeyCombination key, Runnable action) {
        MenuItem m = new MenuItem(text);
        m.setMnemonicParsing(false);
        if (id != null) {
            m.setId(id);
        }
        if (key != null) {
            m.setAccelerator(key);
        }
        m.setOnAction(e -> action.run());
        return m;
    }

    private HBox messageBar() {
        Label text = new Label();
        text.setId("message");
        text.setWrapText(true);
        Button dismiss = new Button("\u2715");
        dismiss.setId("message-dismiss");
        dismiss.setOnAction(e -> messages.dismiss());
        HBox.setHgrow(text, Priority.ALWAYS);
        text.setMaxWidth(Double.MAX_VALUE);
        HBox bar = new HBox(8, text, dismiss);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.getStyleClass().add("message-bar");
        bar.setId("message-bar");
        Runnable show = () -> {
            Messages.Message m = messages.currentProperty().get();
            bar.setVisible(m != null);
            bar.setManaged(m != null);
            bar.getStyleClass().remove("error");
            if (m != null) {
                text.setText(m.text());
                if (m.error()) {
                    bar.getStyleClass().add("error");
                }
            }
        };
        messages.currentProperty().addListener(o -> show.run());
        show.run();
        return bar;
    }

    private HBox statusBar() {
        Label status = new Label();
        status.setId("status");
        Label problems = new Label();
        problems.setId("problem-count");
        problems.getStyleClass().add("error");
        problems.textProperty().bind(Bindings.createStringBinding(() -> {
            int n = composer.problemsProperty().get().size();
            return n == 0 ? "" : n + (n == 1 ? " problem" : " problems") + ": the grid shows the last valid mask";
        }, composer.problemsProperty()));
        // "compiling" shows only for compiles that take a while, so quick edits do not repaint the status twice
        javafx.beans.property.BooleanProperty slow = new javafx.beans.property.SimpleBooleanProperty();
        javafx.animation.PauseTransition wait = new javafx.animation.PauseTransition(javafx.util.Duration.millis(250));
        wait.setOnFinished(e -> slow.set(layout.busyProperty().get()));
        layout.busyProperty().addListener((o, was, busy) -> {
            if (busy) {
                wait.playFromStart();
            } else {
                wait.stop();
                slow.set(false);
            }
        });
        status.textProperty().bind(Bindings.createStringBinding(() -> {
            if (slow.get()) {
                return "compiling\u2026";
            }
            if (!layout.failureProperty().get().isEmpty()) {
                return "compile failed: " + layout.failureProperty().get();
            }
            LayoutModel.Compiled c = layout.compiled();
            return c == null ? "" : String.format(java.util.Locale.ROOT, "compiled %s in %.1f ms",
                    c.composition().name(), c.compileMillis());
        }, slow, layout.failureProperty(), layout.compiledProperty()));
        Region spring = new Region();
        HBox.setHgrow(spring, Priority.ALWAYS);
        HBox bar = new HBox(status, problems, spring);
        bar.getStyleClass().add("status-bar");
        return bar;
    }

    private void openGallery() {
        Stage s = new Stage();
        s.initOwner(stage);
        s.setTitle("Presets");
        PresetGallery gallery = new PresetGallery(Presets.all(), this::submit, grid.view().classColors(), c -> {
            s.close();
            files.openPreset(c);
        });
        Scene scene = new Scene(gallery, 980, 720);
        scene.getStylesheets().add(STYLESHEET);
        s.setScene(scene);
        windows.add(s);
        s.show();
    }

    private void openTile(TileRef t) {
        TokenTile tile = layout.tokens(t.qBlock(), t.kvBlock());
        if (tile != null) {
            int[] c = grid.view().classColors();
            windows.add(TokenView.open(stage, tile, c[2], c[0], List.of(STYLESHEET)));
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

    /** A tab whose content is built when it is first shown, so the window opens without loading what it needs. */
    private static Tab lazyTab(String name, java.util.function.Supplier<javafx.scene.Node> content) {
        Tab t = tab(name, null);
        t.selectedProperty().addListener((o, was, is) -> {
            if (is && t.getContent() == null) {
                t.setContent(content.get());
            }
        });
        return t;
    }

    private static Tab tab(String name, javafx.scene.Node content) {
        Tab t = new Tab(name, content);
        t.setClosable(false);
        t.setId("tab-" + name.toLowerCase(java.util.Locale.ROOT));
        return t;
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
