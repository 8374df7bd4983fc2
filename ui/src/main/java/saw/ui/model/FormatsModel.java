package saw.ui.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.animation.PauseTransition;
import javafx.concurrent.Task;
import javafx.util.Duration;
import saw.engine.format.LayoutFormat;
import saw.engine.format.LayoutFormats;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * What each export format makes of the compiled layout: its size in bytes (measured by writing it, when the
 * estimate is small enough to write in passing) and its fidelity. The interval format (ejkernel) can make a kernel
 * compute EMPTY tiles; those extra tiles are kept per batch entry so the grid can outline them.
 */
public final class FormatsModel {
    /** Formats larger than this (by estimate) are not written just to measure them. */
    static final long MEASURE_LIMIT = 4L << 20;

    /** One format's line in the inspector. */
    public record Summary(String format, long bytes, boolean measured, String fidelity) {}

    /** The ejkernel forward intervals [lower, upper) per batch entry and q-block. */
    public record Intervals(int[][] lower, int[][] upper) {}

    /** Summaries of one compiled layout. */
    public record Report(LayoutModel.Compiled of, List<Summary> summaries, Intervals intervals) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ReadOnlyObjectWrapper<Report> report = new ReadOnlyObjectWrapper<>(this, "report");

    public FormatsModel(LayoutModel layout, Executor executor) {
        // the sizes wait until edits pause, so a burst of edits (or the window opening) does not write every format
        PauseTransition settle = new PauseTransition(Duration.millis(300));
        layout.compiledProperty().addListener(o -> settle.playFromStart());
        settle.setOnFinished(e -> {
            LayoutModel.Compiled c = layout.compiled();
            if (c == null) {
                return;
            }
            Task<Report> task = new Task<>() {
                @Override
                protected Report call() {
                    return summarize(c);
                }
            };
            task.setOnSucceeded(done -> {
                if (layout.compiled() == c) {
                    report.set(task.getValue());
                }
            });
            executor.execute(task);
        });
    }

    public ReadOnlyObjectProperty<Report> reportProperty() {
        return report.getReadOnlyProperty();
    }

    static Report summarize(LayoutModel.Compiled c) {
        TileLayout layout = c.layout();
        List<Summary> out = new ArrayList<>();
        Intervals intervals = null;
        for (LayoutFormat f : LayoutFormats.all()) {
            long estimate = f.estimateBytes(layout);
            if (estimate > MEASURE_LIMIT) {
                out.add(new Summary(f.name(), estimate, false, "not measured (estimate above " + (MEASURE_LIMIT >> 20) + " MiB)"));
                continue;
            }
            try {
                if (f.name().equals("ejkernel")) {
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    f.write(layout, bytes);
                    JsonNode n = JSON.readTree(bytes.toByteArray());
                    intervals = new Intervals(bounds(n.path("lower_bounds")), bounds(n.path("upper_bounds")));
                    String fidelity = n.path("exact").asBoolean()
                            ? "exact"
                            : String.format("%,d extra tiles (fwd), %,d (dkdv); %,d FULL tiles masked",
                                    n.path("extra_tiles").asLong(), n.path("dkdv_extra_tiles").asLong(),
                                    n.path("masked_full_tiles").asLong());
                    out.add(new Summary(f.name(), bytes.size(), true, fidelity));
                } else {
                    CountingStream counter = new CountingStream();
                    f.write(layout, counter);
                    out.add(new Summary(f.name(), counter.count, true, "exact"));
                }
            } catch (IllegalArgumentException e) {
                out.add(new Summary(f.name(), estimate, false, e.getMessage()));
            } catch (IOException e) {
                out.add(new Summary(f.name(), estimate, false, "could not be written: " + e.getMessage()));
            }
        }
        return new Report(c, List.copyOf(out), intervals);
    }

    /** The EMPTY tiles of a grid inside the forward intervals of one batch entry: what the intervals add. */
    public static List<int[]> extraTiles(Intervals iv, int batch, TileGrid grid, int limit) {
        List<int[]> out = new ArrayList<>();
        if (iv == null || batch >= iv.lower().length) {
            return out;
        }
        int[] lo = iv.lower()[batch];
        int[] hi = iv.upper()[batch];
        for (int qb = 0; qb < grid.numQBlocks() && qb < lo.length && out.size() < limit; qb++) {
            for (int run = 0; run < grid.runCount(qb); run++) {
                if (grid.runClass(qb, run) != TileClass.EMPTY) {
                    continue;
                }
                int from = Math.max(lo[qb], grid.runStart(qb, run));
                int to = Math.min(hi[qb], grid.runEnd(qb, run));
                for (int kb = from; kb < to && out.size() < limit; kb++) {
                    out.add(new int[] {qb, kb});
                }
            }
        }
        return out;
    }

    /** [batch][1][blocks] to [batch][blocks]. */
    private static int[][] bounds(JsonNode n) {
        int[][] out = new int[n.size()][];
        for (int b = 0; b < n.size(); b++) {
            JsonNode row = n.get(b).get(0);
            out[b] = new int[row.size()];
            for (int i = 0; i < row.size(); i++) {
                out[b][i] = row.get(i).asInt();
            }
        }
        return out;
    }

    private static final class CountingStream extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
