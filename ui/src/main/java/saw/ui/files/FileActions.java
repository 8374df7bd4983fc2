package saw.ui.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.concurrent.Task;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.image.Image;
import javafx.util.Duration;
import javax.imageio.ImageIO;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigReader;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
import saw.engine.format.LayoutFormat;
import saw.engine.io.AtomicFiles;
import saw.ui.model.ComposerModel;
import saw.ui.model.Configs;
import saw.ui.model.LayoutModel;
import saw.ui.model.Messages;

/**
 * Files, as the window's menus use them: new, open (also from the recent list), save and save as, exports of the
 * compiled layout and of the grid image, the unsaved-changes question, and the session kept between runs (autosaved
 * every 30 s and on exit; restored on start, with a note when the last run did not close cleanly). Reading and
 * writing run on the worker threads; a file that cannot be read leaves the open mask as it was.
 */
public final class FileActions {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
    private final ComposerModel composer;
    private final LayoutModel layout;
    private final Executor workers;
    private final Messages messages;
    private final SessionStore session;
    private final FileAsker asker;
    private final ReadOnlyObjectWrapper<Path> file = new ReadOnlyObjectWrapper<>(this, "file");
    private final ReadOnlyObjectWrapper<List<Path>> recent = new ReadOnlyObjectWrapper<>(this, "recent", List.of());
    private long autosavedRevision = -1;
    private Timeline autosave;
    private boolean closed;
    /** Session writes in the order they were asked for: an older one that finishes late is dropped. */
    private final Object sessionLock = new Object();
    private long sessionAsked;
    private long sessionWritten;

    public FileActions(ComposerModel composer, LayoutModel layout, Executor workers, Messages messages,
                       SessionStore session, FileAsker asker) {
        this.composer = composer;
        this.layout = layout;
        this.workers = workers;
        this.messages = messages;
        this.session = session;
        this.asker = asker;
    }

    /** The file the open config was read from or last saved to; null for a new one. */
    public ReadOnlyObjectProperty<Path> fileProperty() {
        return file.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<List<Path>> recentProperty() {
        return recent.getReadOnlyProperty();
    }

    public void newConfig() {
        whenChangesAreSafe(() -> {
            composer.open(Configs.starter());
            file.set(null);
            messages.dismiss();
        });
    }

    public void open() {
        whenChangesAreSafe(() -> {
            Path p = asker.open("Open mask config", "json", folder());
            if (p != null) {
                read(p);
            }
        });
    }

    public void open(Path p) {
        whenChangesAreSafe(() -> read(p));
    }

    /** Opens a preset as a new, unsaved config. */
    public void openPreset(MaskConfig preset) {
        whenChangesAreSafe(() -> {
            composer.open(preset);
            file.set(null);
            messages.info("Opened preset " + preset.name() + ": " + preset.description());
        });
    }

    public void save() {
        save(() -> {});
    }

    public void saveAs() {
        saveAs(() -> {});
    }

    /**
     * Writes the compiled layout of the open config in one export format. A format that cannot hold the layout is
     * refused before the file chooser; above {@link #LONG_WRITE_BYTES} the estimated size is confirmed first; the
     * write shows its progress and can be cancelled ({@link #cancelWrite()}), leaving the target as it was.
     */
    public void exportLayout(LayoutFormat format) {
        LayoutModel.Compiled c = layout.compiled();
        if (c == null || !c.composition().equals(composer.composition())) {
            messages.error("Nothing to export yet: " + (composer.problemsProperty().get().isEmpty()
                    ? "the layout is still compiling" : "fix the mask's problems first (they show at the fields)"),
                    composer.compositionProperty());
            return;
        }
        if (writing.get()) {
            messages.error("A file is being written; wait for it or cancel it first.");
            return;
        }
        // the format's own check runs on a worker (a format may prepare its arrays before its first byte)
        run(() -> java.util.Optional.ofNullable(refusal(format, c.layout())), refusal -> {
            if (refusal.isPresent()) {
                messages.error("Cannot export the " + format.name() + " layout: " + refusal.get(),
                        composer.compositionProperty());
            } else {
                askAndExport(format, c);
            }
        }, "Could not export the " + format.name() + " layout: ");
    }

    private void askAndExport(LayoutFormat format, LayoutModel.Compiled c) {
        long estimate = format.estimateBytes(c.layout());
        if (estimate > LONG_WRITE_BYTES && !asker.confirm("Export a large file", "The " + format.name() + " layout of "
                + c.composition().name() + " takes up to " + human(estimate) + " on disk and a while to write (with a"
                + " progress bar and Cancel); export it?")) {
            return;
        }
        Path p = asker.saveAs("Export " + format.name() + " layout", c.composition().name() + "-" + format.name() + ".json",
                "json", folder());
        if (p == null) {
            return;
        }
        write(p, "the " + format.name() + " layout of " + c.composition().name(), estimate,
                out -> format.write(c.layout(), out));
    }

    /** Estimated sizes above this are confirmed before the file chooser (100 MB). */
    public static final long LONG_WRITE_BYTES = 100_000_000L;

    /** Whether a long write is in progress (its progress and text in {@link #writeProgressProperty()}). */
    public javafx.beans.property.ReadOnlyBooleanProperty writingProperty() {
        return writing.getReadOnlyProperty();
    }

    /** The share of the write done, 0 to 1 (by the size estimate). */
    public javafx.beans.property.ReadOnlyDoubleProperty writeProgressProperty() {
        return writeProgress.getReadOnlyProperty();
    }

    /** What is being written, e.g. "Writing the flex layout of x to /tmp/x.json". */
    public javafx.beans.property.ReadOnlyStringProperty writeTextProperty() {
        return writeText.getReadOnlyProperty();
    }

    /** Stops the write in progress; the target keeps its old content (or stays absent) and the partial file goes. */
    public void cancelWrite() {
        cancelRequested = true;
    }

    private final javafx.beans.property.ReadOnlyBooleanWrapper writing = new javafx.beans.property.ReadOnlyBooleanWrapper(this, "writing");
    private final javafx.beans.property.ReadOnlyDoubleWrapper writeProgress = new javafx.beans.property.ReadOnlyDoubleWrapper(this, "writeProgress");
    private final javafx.beans.property.ReadOnlyStringWrapper writeText = new javafx.beans.property.ReadOnlyStringWrapper(this, "writeText", "");
    private volatile boolean cancelRequested;

    /** Thrown inside a write that the user cancelled; AtomicFiles then removes the partial temporary file. */
    private static final class CancelledWrite extends IOException {
        CancelledWrite() {
            super("cancelled");
        }
    }

    private void write(Path p, String what, long estimate, AtomicFiles.Content content) {
        cancelRequested = false;
        writing.set(true);
        writeProgress.set(0);
        writeText.set("Writing " + what + " to " + p.getFileName() + " (up to " + human(estimate) + ")");
        Task<Long> task = new Task<>() {
            @Override
            protected Long call() throws Exception {
                AtomicFiles.write(p, out -> content.writeTo(new java.io.FilterOutputStream(out) {
                    private long done;

                    @Override
                    public void write(int b) throws IOException {
                        out.write(b);
                        count(1);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        out.write(b, off, len);
                        count(len);
                    }

                    private void count(int n) throws IOException {
                        long before = done;
                        done += n;
                        if (before >> 20 != done >> 20) {
                            if (cancelRequested) {
                                throw new CancelledWrite();
                            }
                            updateProgress(Math.min(done, estimate), Math.max(1, estimate));
                        }
                    }
                }));
                return Files.size(p);
            }
        };
        task.progressProperty().addListener((o, a, v) -> writeProgress.set(Math.max(0, v.doubleValue())));
        task.setOnSucceeded(e -> {
            writing.set(false);
            messages.info("Wrote " + what + " to " + p + " (" + String.format("%,d", task.getValue()) + " bytes)");
        });
        task.setOnFailed(e -> {
            writing.set(false);
            Throwable t = task.getException();
            if (t instanceof CancelledWrite) {
                messages.info("Cancelled writing " + what + "; " + p + " was left as it was.");
            } else {
                messages.error("Could not write " + what + ": " + (t instanceof IllegalArgumentException
                        ? t.getMessage() : String.valueOf(t)), composer.compositionProperty());
            }
        });
        workers.execute(task);
    }

    /**
     * Why {@code format} cannot hold this layout, or null when it can: the format's own check, which comes before
     * it writes a byte, run against a stream that stops at the first byte.
     */
    static String refusal(LayoutFormat format, saw.engine.mask.TileLayout l) {
        final class FirstByte extends IOException {
        }
        try {
            format.write(l, new java.io.OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    throw new FirstByte();
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    throw new FirstByte();
                }
            });
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        } catch (IOException e) {
            return null;
        }
    }

    private static String human(long bytes) {
        if (bytes < 1L << 20) {
            return String.format(java.util.Locale.ROOT, "%,d bytes", bytes);
        }
        return bytes < 1L << 30 ? String.format(java.util.Locale.ROOT, "%.0f MiB", bytes / 1048576.0)
                : String.format(java.util.Locale.ROOT, "%.1f GiB", bytes / 1073741824.0);
    }

    /** Writes an image of the grid (taken on the FX thread) as PNG. */
    public void exportPng(Image image) {
        Path p = asker.saveAs("Export grid as PNG", composer.composition().name() + "-grid.png", "png", folder());
        if (p == null) {
            return;
        }
        run(() -> {
            var buffered = SwingFXUtils.fromFXImage(image, null);
            AtomicFiles.write(p, out -> ImageIO.write(buffered, "png", out));
            return p;
        }, done -> messages.info("Wrote the grid image to " + done), "Could not write the PNG: ");
    }

    /**
     * Runs {@code next} once unsaved changes are saved or the user chose to drop them; not at all when they cancel.
     */
    public void whenChangesAreSafe(Runnable next) {
        if (!composer.history().dirtyProperty().get()) {
            next.run();
            return;
        }
        switch (asker.unsavedChanges(composer.composition().name())) {
            case SAVE:
                save(next);
                break;
            case DISCARD:
                next.run();
                break;
            default:
                break;
        }
    }

    /**
     * As {@link #whenChangesAreSafe}, before the window closes: "Don't save" then really drops the changes, so the
     * next start shows the last saved state (or a new mask), not the dropped work.
     */
    public void whenChangesAreSafeToClose(Runnable close) {
        if (!composer.history().dirtyProperty().get()) {
            close.run();
            return;
        }
        switch (asker.unsavedChanges(composer.composition().name())) {
            case SAVE:
                save(close);
                break;
            case DISCARD:
                discardOnClose = true;
                close.run();
                break;
            default:
                break;
        }
    }

    private boolean discardOnClose;

    // ---- session ----

    /**
     * Restores the last session (or opens {@code fallback}) and starts autosaving every 30 seconds.
     *
     * @param last what {@link SessionStore#load()} found (read on a worker while the window was being built)
     */
    public void restore(MaskConfig fallback, java.util.Optional<SessionStore.Session> last) {
        if (last.isPresent() && last.get().config() != null) {
            SessionStore.Session s = last.get();
            composer.open(s.config());
            file.set(s.file());
            if (s.unsaved()) {
                composer.history().markUnsaved();
            }
            layout.headProperty().set(s.head());
            layout.batchProperty().set(s.batch());
            recent.set(s.recent());
            if (!s.cleanExit()) {
                messages.info("saw did not close cleanly last time; the mask autosaved at " + TIME.format(s.savedAt())
                        + " is restored. Undo is empty; save it to keep it.");
            }
        } else {
            composer.open(fallback);
            last.ifPresent(s -> recent.set(s.recent()));
        }
        last.map(SessionStore.Session::problem).ifPresent(p -> messages.error("Could not restore the last session: " + p));
        autosave = new Timeline(new KeyFrame(Duration.seconds(30), e -> autosave(false)));
        autosave.setCycleCount(Timeline.INDEFINITE);
        // marks the session as open (not cleanly closed) soon after start, off the window's first frames
        autosave.getKeyFrames().add(new KeyFrame(Duration.seconds(3), e -> autosave(false)));
        autosave.playFromStart();
    }

    /** Saves the session now, on a worker thread; {@code cleanExit} on the last save before the window closes. */
    public void autosave(boolean cleanExit) {
        if (closed) {
            return;
        }
        closed = cleanExit;
        long revision = composer.history().revisionProperty().get();
        if (revision == autosavedRevision && !cleanExit) {
            return;
        }
        autosavedRevision = revision;
        MaskConfig c = composer.composition();
        Path f = file.get();
        boolean unsaved = composer.history().dirtyProperty().get();
        if (cleanExit && discardOnClose && unsaved) {
            MaskConfig saved = lastSaved(f);
            c = saved != null ? saved : Configs.starter();
            f = saved != null ? f : null;
            unsaved = false;
        }
        MaskConfig kept = c;
        Path keptFile = f;
        boolean keptUnsaved = unsaved;
        List<Path> r = recent.get();
        int head = layout.headProperty().get();
        int batch = layout.batchProperty().get();
        long order = ++sessionAsked;
        Callable<Void> write = () -> {
            synchronized (sessionLock) {
                if (order > sessionWritten) {
                    sessionWritten = order;
                    session.save(kept, keptFile, keptUnsaved, r, cleanExit, head, batch);
                }
            }
            return null;
        };
        if (cleanExit) {
            try {
                write.call();
            } catch (Exception e) {
                System.err.println("saw: could not save the session in " + session.folder() + ": " + e.getMessage());
            }
            if (autosave != null) {
                autosave.stop();
            }
        } else {
            run(write, done -> {}, "Could not autosave the session: ");
        }
    }

    /** What was saved last: the state saved in this window, else the file as it is on disk; null when neither. */
    private MaskConfig lastSaved(Path f) {
        MaskConfig saved = composer.history().saved();
        if (saved != null) {
            return saved;
        }
        if (f != null) {
            try {
                return ConfigReader.read(f);
            } catch (ConfigException | RuntimeException e) {
                // the file is gone or broken: start from a new mask, as File > New would
            }
        }
        return null;
    }

    // ---- internals ----

    private void read(Path p) {
        // one of saw's own exports is recognised by its header and offered what makes sense, not read as a config
        run(() -> {
            ExportFile export = ExportFile.recognise(p);
            return export != null ? export : ConfigReader.read(p);
        }, result -> {
            if (result instanceof ExportFile export) {
                offerExport(p, export);
                return;
            }
            MaskConfig config = (MaskConfig) result;
            composer.open(config);
            file.set(p);
            recent.set(SessionStore.withRecent(recent.get(), p));
            messages.info("Opened " + p);
        }, messages::error);
    }

    private void offerExport(Path p, ExportFile e) {
        Path config = ExportFile.configBeside(p, e.formatName());
        List<Messages.Action> actions = new java.util.ArrayList<>();
        String offer;
        if (config != null) {
            actions.add(new Messages.Action("Open " + config.getFileName(), () -> open(config)));
            offer = "open " + config.getFileName() + " beside it";
        } else {
            offer = "open the config it was exported from";
        }
        if (e.importable()) {
            String name = p.getFileName().toString().replaceFirst("(?i)\\.json$", "");
            actions.add(new Messages.Action("Import as block_list mask", () -> whenChangesAreSafe(() -> run(
                    () -> e.importAsBlockList(p, name), imported -> {
                        composer.open(imported);
                        composer.history().markUnsaved();
                        file.set(null);
                        messages.info("Imported the tiles of " + p.getFileName() + " as a block_list mask (unsaved).");
                    }, "Could not import " + p.getFileName() + ": "))));
            offer += ", or import its layout as a block_list mask";
        }
        messages.offer(p.getFileName() + " is saw's " + e.formatName() + " export of a " + e.seqQ() + " x " + e.seqKv()
                + " layout (tiles " + e.blockQ() + "x" + e.blockKv() + "), not a mask config: " + offer + ".", actions);
    }

    private void save(Runnable then) {
        if (file.get() == null) {
            saveAs(then);
        } else {
            write(file.get(), then);
        }
    }

    private void saveAs(Runnable then) {
        Path p = asker.saveAs("Save mask config", composer.composition().name() + ".json", "json", folder());
        if (p == null) {
            return;
        }
        MaskConfig c = composer.composition();
        String stem = p.getFileName().toString().replaceFirst("(?i)\\.json$", "");
        if (c.name().equals(Configs.starter().name()) && !stem.isBlank()) {
            // a new mask takes its name from the file it is first saved to
            composer.history().execute("Name it " + stem, new MaskConfig(stem, c.description(), c.seqLenQ(),
                    c.seqLenKv(), c.batch(), c.heads(), c.block(), c.mask()));
        }
        write(p, then);
    }

    private void write(Path p, Runnable then) {
        MaskConfig c = composer.composition();
        int problems = composer.problemsProperty().get().size();
        if (problems > 0) {
            messages.error("Not saved: the mask has " + problems + (problems == 1 ? " problem" : " problems")
                    + " (shown at the fields); a saved config must load again.");
            return;
        }
        run(() -> {
            ConfigWriter.write(c, p);
            return p;
        }, done -> {
            composer.history().markSaved(c);
            file.set(p);
            recent.set(SessionStore.withRecent(recent.get(), p));
            messages.info("Saved " + p);
            then.run();
        }, "Could not save: ");
    }

    /** Where choosers start: the open file's folder, else the most recent file's. */
    public Path folder() {
        Path f = file.get();
        if (f != null && f.toAbsolutePath().getParent() != null) {
            return f.toAbsolutePath().getParent();
        }
        return recent.get().isEmpty() ? null : recent.get().get(0).toAbsolutePath().getParent();
    }

    private <T> void run(Callable<T> work, Consumer<T> onDone, String failurePrefix) {
        run(work, onDone, message -> messages.error(failurePrefix + message));
    }

    private <T> void run(Callable<T> work, Consumer<T> onDone, Consumer<String> onError) {
        Task<T> task = new Task<>() {
            @Override
            protected T call() throws Exception {
                return work.call();
            }
        };
        task.setOnSucceeded(e -> onDone.accept(task.getValue()));
        task.setOnFailed(e -> {
            Throwable t = task.getException();
            String m = t instanceof ConfigException || t instanceof IllegalArgumentException ? t.getMessage()
                    : t instanceof IOException ? t.toString() : String.valueOf(t);
            onError.accept(m);
        });
        workers.execute(task);
    }
}
