package saw.tests;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.stage.Stage;
import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import saw.engine.mask.Mask;
import saw.ui.Workbench;
import saw.ui.files.SessionStore;
import saw.ui.grid.GridRaster;
import saw.ui.model.NodePath;

/**
 * Times the real window (bench/screenshots.sh runs it under Xvfb) and prints a table: the grid redraw after a zoom
 * at 1K to 1M tokens, and the time from an edit at 128K tokens to its new grid drawn. A program, not a test.
 */
public final class WindowTimings {
    private WindowTimings() {}

    public static void main(String[] args) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Platform.startup(started::countDown);
        started.await();
        Workbench wb = fx(() -> {
            Stage stage = new Stage();
            Workbench w = new Workbench(stage, new SessionStore(Files.createTempDirectory("saw-timings")), null);
            stage.show();
            return w;
        });
        System.out.println("| grid | tokens | tiles | view px | raster median ms | redraw median ms | redraw max ms |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        Mask window = Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(4096, 0));
        redraws(wb, "causal", 1024, 16, new Mask.Causal(0));
        redraws(wb, "causal", 131072, 128, new Mask.Causal(0));
        redraws(wb, "causal + window 4096", 1048576, 128, window);
        redraws(wb, "causal", 1048576, 16, new Mask.Causal(0));
        System.out.println();
        editLatency(wb);
        fx(() -> {
            wb.stage().close();
            return null;
        });
        Platform.exit();
    }

    private static MaskConfig config(String name, int seq, int block, Mask mask) {
        return new MaskConfig(name, "", seq, seq, 1, 1, new BlockSize(block, block), mask);
    }

    private static void open(Workbench wb, MaskConfig c) throws Exception {
        fx(() -> {
            wb.composer().open(c);
            return null;
        });
        waitFor(() -> wb.layout().compiled() != null && wb.layout().compiled().composition().equals(c));
    }

    private static void redraws(Workbench wb, String name, int seq, int block, Mask mask) throws Exception {
        open(wb, config(name, seq, block, mask));
        double[] ms = new double[40];
        double[] raster = new double[40];
        int[] size = new int[2];
        for (int i = 0; i < ms.length; i++) {
            int step = i;
            double[] both = fx(() -> {
                var view = wb.grid().view();
                if (step == 0) {
                    view.fit();
                } else {
                    view.zoom(step % 2 == 1 ? 1.5 : 1 / 1.4);
                }
                view.layout();
                double redraw = view.lastRenderMillis();
                int w = (int) view.getWidth();
                int h = (int) view.getHeight();
                size[0] = w;
                size[1] = h;
                int[] px = new int[w * h];
                long t0 = System.nanoTime();
                new GridRaster(w, h).render(view.gridProperty().get(), view.viewportProperty().get(), view.classColors(), px);
                return new double[] {redraw, (System.nanoTime() - t0) / 1e6};
            });
            ms[i] = both[0];
            raster[i] = both[1];
        }
        double[] warm = Arrays.copyOfRange(ms, 5, ms.length);
        Arrays.sort(warm);
        double[] warmRaster = Arrays.copyOfRange(raster, 5, raster.length);
        Arrays.sort(warmRaster);
        long tiles = (long) ((seq + block - 1) / block) * ((seq + block - 1) / block);
        System.out.printf(Locale.ROOT, "| %s, %dx%d tiles of %d | %,d | %,d | %dx%d | %.2f | %.2f | %.2f |%n", name,
                (seq + block - 1) / block, (seq + block - 1) / block, block, seq, tiles, size[0], size[1],
                warmRaster[warmRaster.length / 2], warm[warm.length / 2], warm[warm.length - 1]);
    }

    /**
     * From the edit on the FX thread to the new grid drawn into the canvas, taken on the FX thread when the compiled
     * layout arrives (the scene's own repaint to the screen comes after, and depends on the graphics pipeline).
     */
    private static void editLatency(Workbench wb) throws Exception {
        int seq = 131072;
        open(wb, config("window-128k", seq, 128, Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(4096, 0))));
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            int left = 2048 + 256 * i;
            CountDownLatch drawn = new CountDownLatch(1);
            long[] t = new long[2];
            fx(() -> {
                javafx.beans.value.ChangeListener<Object> l = new javafx.beans.value.ChangeListener<>() {
                    @Override
                    public void changed(javafx.beans.value.ObservableValue<?> o, Object a, Object b) {
                        var c = wb.layout().compiled();
                        if (c != null && c.composition().equals(wb.composer().composition())) {
                            wb.grid().view().layout();
                            t[1] = System.nanoTime();
                            wb.layout().compiledProperty().removeListener(this);
                            drawn.countDown();
                        }
                    }
                };
                wb.layout().compiledProperty().addListener(l);
                t[0] = System.nanoTime();
                wb.composer().setNode(NodePath.of(1), new Mask.SlidingWindow(left, 0), "timing edit");
                return null;
            });
            if (!drawn.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the edit never reached the grid");
            }
            ms.add((t[1] - t[0]) / 1e6);
        }
        List<Double> warm = new ArrayList<>(ms.subList(3, ms.size()));
        warm.sort(null);
        System.out.printf(Locale.ROOT, "Edit at %,d tokens (causal + sliding window, 128x128 tiles, window left changed) to "
                + "its grid drawn: median %.1f ms, max %.1f ms over %d edits (after 3 warm-up edits)%n", seq,
                warm.get(warm.size() / 2), warm.get(warm.size() - 1), warm.size());
    }

    private static <T> T fx(Callable<T> c) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Object[] out = new Object[1];
        Throwable[] failure = new Throwable[1];
        Platform.runLater(() -> {
            try {
                out[0] = c.call();
            } catch (Throwable t) {
                failure[0] = t;
            } finally {
                done.countDown();
            }
        });
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the FX thread did not answer in 60 s");
        }
        if (failure[0] != null) {
            throw new IllegalStateException(failure[0]);
        }
        @SuppressWarnings("unchecked")
        T t = (T) out[0];
        return t;
    }

    private static void waitFor(Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (fx(condition)) {
                return;
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("timed out waiting for the window");
    }
}
