package saw.tests;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.application.Platform;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.image.WritableImage;
import javafx.scene.robot.Robot;
import javafx.stage.Stage;
import javafx.stage.Window;
import javax.imageio.ImageIO;
import saw.engine.config.Presets;
import saw.ui.Workbench;
import saw.ui.files.SessionStore;
import saw.ui.grid.TileRef;

/**
 * Captures the real window on a real display (bench/screenshots.sh runs it under Xvfb): the composer with the grid
 * of a preset, a tile at token level, a CPU sweep in the run panel and its chart. Not a test; a program that writes PNGs into the folder given.
 */
public final class Screenshots {
    private Screenshots() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/img");
        Files.createDirectories(out);
        Path session = Files.createTempDirectory("saw-screenshots");
        CountDownLatch started = new CountDownLatch(1);
        Platform.startup(started::countDown);
        started.await();
        Workbench[] wb = new Workbench[1];
        onFx(() -> {
            Stage stage = new Stage();
            wb[0] = new Workbench(stage, new SessionStore(session), null);
            wb[0].files().openPreset(Presets.get("bigbird"));
            stage.setX(0);
            stage.setY(0);
            stage.show();
        });
        waitFor(() -> wb[0].layout().compiled() != null && !wb[0].layout().busyProperty().get());
        settle();
        capture(wb[0].stage(), out.resolve("workbench.png"));

        Stage[] tokens = new Stage[1];
        onFx(() -> {
            var view = wb[0].grid().view();
            view.fit();
            int diag = view.gridProperty().get().numQBlocks() / 3;
            // a tile at the window's edge: PARTIAL, so both kinds of pair show
            tokens[0] = wb[0].openTile(new TileRef(diag, diag + 2));
        });
        settle();
        capture(tokens[0], out.resolve("token-view.png"));
        onFx(tokens[0]::close);

        // the dark theme, a million tokens of causal window 256 with 6 sinks, zoomed in on the diagonal (minimap)
        onFx(() -> {
            wb[0].themeProperty().set(saw.ui.Theme.DARK);
            wb[0].composer().open(new saw.engine.config.MaskConfig("window-256-sinks-6", "", 1 << 20, 1 << 20, 1, 1,
                    new saw.engine.config.BlockSize(128, 128), saw.engine.mask.Mask.Or.of(saw.engine.mask.Mask.And.of(
                            new saw.engine.mask.Mask.Causal(0), new saw.engine.mask.Mask.SlidingWindow(256, 0)),
                            new saw.engine.mask.Mask.Sinks(6))));
        });
        waitFor(() -> wb[0].layout().compiled() != null && !wb[0].layout().busyProperty().get()
                && wb[0].layout().compiled().composition().equals(wb[0].composer().composition()));
        onFx(() -> {
            wb[0].messages().dismiss();
            wb[0].grid().view().show(new saw.ui.grid.VisibleRange(2000, 2060, 1960, 2080));
        });
        waitFor(() -> !wb[0].root().lookup("#formats-updating").isVisible());
        settle();
        capture(wb[0].stage(), out.resolve("workbench-dark.png"));
        onFx(() -> {
            wb[0].themeProperty().set(saw.ui.Theme.LIGHT);
            wb[0].files().openPreset(Presets.get("bigbird"));
        });
        waitFor(() -> wb[0].layout().compiled() != null && !wb[0].layout().busyProperty().get()
                && wb[0].layout().compiled().composition().equals(wb[0].composer().composition()));

        onFx(() -> wb[0].openGallery());
        waitFor(() -> Window.getWindows().size() > 1 && Window.getWindows().stream()
                .filter(w -> w != wb[0].stage()).allMatch(w -> w.getScene().getRoot().lookupAll(".image-view").stream()
                        .allMatch(v -> ((javafx.scene.image.ImageView) v).getImage() != null)));
        settle();
        Stage gallery = (Stage) Window.getWindows().stream().filter(w -> w != wb[0].stage()).findFirst().orElseThrow();
        capture(gallery, out.resolve("gallery.png"));
        onFx(gallery::close);

        onFx(() -> {
            wb[0].showTab("Run");
            var run = wb[0].run();
            run.sweptProperty().set(saw.ui.run.RunModel.Swept.DENSITY);
            run.valuesProperty().set("0.05, 0.1, 0.25, 0.5, 1");
            run.tilesProperty().set("64x64, 128x64, 128x128");
            run.headsProperty().set(2);
            run.warmupProperty().set(1);
            run.repsProperty().set(5);
        });
        waitFor(() -> wb[0].run().backendProperty().get() != null);
        onFx(() -> {
            var run = wb[0].run();
            run.backendProperty().set(run.backends().stream().filter(b -> b.name().equals("cpu")).findFirst().orElseThrow());
            run.run(wb[0].composer().composition());
        });
        waitFor(() -> !wb[0].run().runningProperty().get() && !wb[0].run().rows().isEmpty());
        settle();
        capture(wb[0].stage(), out.resolve("run.png"));
        onFx(() -> wb[0].showTab("Charts"));
        settle();
        capture(wb[0].stage(), out.resolve("chart.png"));
        onFx(() -> wb[0].stage().close());
        Platform.exit();
    }

    static void capture(Window w, Path file) throws Exception {
        WritableImage[] img = new WritableImage[1];
        onFx(() -> img[0] = new Robot().getScreenCapture(null, w.getX(), w.getY(), w.getWidth(), w.getHeight(), false));
        BufferedImage b = SwingFXUtils.fromFXImage(img[0], null);
        ImageIO.write(b, "png", new File(file.toString()));
        System.out.println("wrote " + file + " (" + b.getWidth() + "x" + b.getHeight() + ")");
    }

    static void onFx(Runnable r) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Throwable[] failure = new Throwable[1];
        Platform.runLater(() -> {
            try {
                r.run();
            } catch (Throwable t) {
                failure[0] = t;
            } finally {
                done.countDown();
            }
        });
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the FX thread did not answer in 30 s");
        }
        if (failure[0] != null) {
            throw new IllegalStateException(failure[0]);
        }
    }

    static void waitFor(BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
        boolean[] ok = new boolean[1];
        while (System.nanoTime() < deadline) {
            onFx(() -> ok[0] = condition.getAsBoolean());
            if (ok[0]) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("timed out waiting for the window");
    }

    /** Lets a few frames render so the capture shows the finished state. */
    static void settle() throws Exception {
        for (int i = 0; i < 10; i++) {
            onFx(() -> {});
            Thread.sleep(60);
        }
    }
}
