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
    private final javafx.beans.property.ObjectProperty<Theme> theme =
            new javafx.beans.property.SimpleObjectProperty<>(this, "theme", Theme.LIGHT);
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
        theme.set(Theme.named(session.loadTheme()));
        theme.get().applyToApplication();
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
            RunView view = new RunView(run, composer);
            view.setConfirm(dialogs::confirm);
            return view;
        }), lazyTab("Charts", () -> new ChartsView(charts, dialogs, messages, files::folder,
                Bindings.equal(theme, Theme.DARK))),
                lazyTab("Ring", () -> new saw.ui.ring.RingView(new saw.ui.ring.RingViewModel(layout, work))),
                lazyTab("NSA", () -> new saw.ui.nsa.NsaView(nsa)));
        inspector.extraSections().getChildren().add(new saw.ui.nsa.NsaStatsPane(nsa));
        centre.setId("centre-tabs");
        SplitPane body = new SplitPane(composerView, centre, inspector);
        body.setDividerPositions(0.27, 0.78);
        // the composer widens with the window (its fields and hints get the room); the inspector keeps its width
        SplitPane.setResizableWithParent(inspector, false);

        VBox top = new VBox(menus(), new SizesBar(composer, layout), messageBar());
        top.getStyleClass().add("top-bar");
        root.setTop(top);
        root.setCenter(body);
        root.setBottom(statusBar());
        root.setId("workbench");

        grid.view().setOnOpen(t -> openTile(t));
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
        theme.get().style(scene);
        theme.addListener((o, was, now) -> {
            now.applyToApplication();
            now.style(scene);
            windows.removeIf(w -> !w.isShowing());
            windows.forEach(w -> now.style(w.getScene()));
            submit(() -> {
                try {
                    session.saveTheme(now.name().toLowerCase(java.util.Locale.ROOT));
                } catch (java.io.IOException e) {
                    System.err.println("saw: could not remember the theme in " + session.folder() + ": " + e.getMessage());
                }
            });
        });
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
                files.whenChangesAreSafeToClose(this::closeWindow);
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

    /** The look, chosen in View and remembered in the session folder. */
    public javafx.beans.property.ObjectProperty<Theme> themeProperty() {
        return theme;
    }

    /** Selects the tab "Grid", "Run", "Charts", "Ring" or "NSA" (a tab other than Grid builds its view when first shown). */
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
            BackendChoice keep = run.backendProperty().get();
            run.backends().setAll(probe.getValue());
            // probed again (the remote targets changed): the choice made stays, when it is still offered
            run.backendProperty().set(probe.getValue().stream().filter(b -> keep != null && b.name().equals(keep.name()))
                    .findFirst().orElse(probe.getValue().get(0)));
        });
        probe.setOnFailed(e -> messages.error("Could not look for backends: " + probe.getException()));
        submit(probe);
    }

    /** The remote targets dialog; the run panel's backend list is probed again when it closes. */
    public Stage openRemoteTargets() {
        Stage dialog = saw.ui.remote.TargetDialog.show(stage, saw.ui.remote.TargetsModel.user(workers), this::detectBackends);
        windows.add(dialog);
        return dialog;
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
                        () -> files.whenChangesAreSafeToClose(this::closeWindow)));

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
                        () -> grid.view().zoom(0.5)),
                new SeparatorMenuItem());
        javafx.scene.control.ToggleGroup looks = new javafx.scene.control.ToggleGroup();
        for (Theme t : Theme.values()) {
            javafx.scene.control.RadioMenuItem look = new javafx.scene.control.RadioMenuItem(t.label() + " theme");
            look.setId("menu-theme-" + t.name().toLowerCase(java.util.Locale.ROOT));
            look.setToggleGroup(looks);
            look.setSelected(theme.get() == t);
            look.setOnAction(e -> theme.set(t));
            theme.addListener((o, was, now) -> look.setSelected(now == t));
            view.getItems().add(look);
        }

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
        Menu runMenu = new Menu("Run");
        runMenu.setId("menu-run");
        runMenu.getItems().add(item("Remote targets\u2026", "menu-remote-targets", null, this::openRemoteTargets));
        MenuBar bar = new MenuBar(file, edit, view, presets, runMenu);
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
        HBox actions = new HBox(6);
        actions.setAlignment(Pos.CENTER_LEFT);
        HBox bar = new HBox(8, text, actions, dismiss);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.getStyleClass().add("message-bar");
        bar.setId("message-bar");
        javafx.scene.control.Tooltip whole = new javafx.scene.control.Tooltip();
        Runnable show = () -> {
            Messages.Message m = messages.currentProperty().get();
            bar.setVisible(m != null);
            bar.setManaged(m != null);
            bar.getStyleClass().remove("error");
            actions.getChildren().clear();
            if (m != null) {
                text.setText(firstLines(m.text(), MESSAGE_LINES));
                whole.setText(m.text());
                text.setTooltip(text.getText().equals(m.text()) ? null : whole);
                if (m.error()) {
                    bar.getStyleClass().add("error");
                }
                for (int i = 0; i < m.actions().size(); i++) {
                    Messages.Action a = m.actions().get(i);
                    Button b = new Button(a.label());
                    b.setId("message-action-" + i);
                    b.setMnemonicParsing(false);
                    b.setMinWidth(Region.USE_PREF_SIZE);
                    b.setOnAction(e -> {
                        messages.dismiss();
                        a.run().run();
                    });
                    actions.getChildren().add(b);
                }
            }
        };
        messages.currentProperty().addListener(o -> show.run());
        show.run();
        return bar;
    }

    /** Lines of a message shown above the grid; the rest is in its tooltip (a long list must not push the grid away). */
    static final int MESSAGE_LINES = 3;

    /** The first {@code n} lines of {@code text}, and how many more there are. */
    static String firstLines(String text, int n) {
        String[] lines = text.split("\n");
        if (lines.length <= n) {
            return text;
        }
        int more = lines.length - n;
        return String.join("\n", java.util.Arrays.copyOf(lines, n)) + "\n\u2026 and " + more
                + (more == 1 ? " more line" : " more lines") + " (hover to see all)";
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
        Label writing = new Label();
        writing.setId("write-status");
        writing.textProperty().bind(files.writeTextProperty());
        javafx.scene.control.ProgressBar writeBar = new javafx.scene.control.ProgressBar();
        writeBar.setId("write-progress");
        writeBar.progressProperty().bind(files.writeProgressProperty());
        Button cancelWrite = new Button("Cancel writing");
        cancelWrite.setId("write-cancel");
        cancelWrite.setOnAction(e -> files.cancelWrite());
        HBox write = new HBox(8, writing, writeBar, cancelWrite);
        write.setAlignment(Pos.CENTER_LEFT);
        write.visibleProperty().bind(files.writingProperty());
        write.managedProperty().bind(files.writingProperty());
        writing.setMinWidth(Region.USE_PREF_SIZE);
        cancelWrite.setMinWidth(Region.USE_PREF_SIZE);
        HBox bar = new HBox(status, problems, spring, write);
        bar.getStyleClass().add("status-bar");
        return bar;
    }

    /** Opens the preset gallery in its own window and returns it. */
    public Stage openGallery() {
        Stage s = new Stage();
        s.initOwner(stage);
        s.setTitle("Presets");
        PresetGallery gallery = new PresetGallery(Presets.all(), this::submit, grid.view().classColors(), c -> {
            s.close();
            files.openPreset(c);
        });
        Scene scene = new Scene(TokenView.closable(gallery, s, "gallery-close"), 980, 720);
        theme.get().style(scene);
        s.setScene(scene);
        windows.add(s);
        s.show();
        return s;
    }

    /** Opens a tile at token level (or brings its open window to the front) and returns its window, or null. */
    public Stage openTile(TileRef t) {
        TokenTile tile = layout.tokens(t.qBlock(), t.kvBlock());
        if (tile == null) {
            return null;
        }
        // the same tile of the same layout comes to the front instead of opening again
        Object key = java.util.List.of(layout.compiled(), layout.variantProperty().get(), t);
        windows.removeIf(w -> !w.isShowing());
        for (Stage w : windows) {
            if (key.equals(w.getUserData())) {
                w.toFront();
                return w;
            }
        }
        int[] c = grid.view().classColors();
        Stage s = TokenView.open(stage, tile, c[2], c[0], List.of(STYLESHEET));
        s.setUserData(key);
        theme.get().style(s.getScene());
        // each further tile window steps down and right, so it never hides the one before exactly
        long open = windows.stream().filter(w -> w.getUserData() != null).count();
        s.setX(s.getX() + 28 * (open % 8));
        s.setY(s.getY() + 28 * (open % 8));
        windows.add(s);
        return s;
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
