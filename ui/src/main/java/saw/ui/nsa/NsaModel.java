package saw.ui.nsa;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javafx.application.Platform;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import saw.engine.gpu.NsaGpu;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.BadSelection;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;
import saw.engine.nsa.NsaStats;
import saw.ui.model.LayoutModel;

/**
 * The NSA view's model: a selection made from the compiled mask (its blocks per token) or drawn (random or scored
 * top-S at the mask's kv block size), its stats over q-tiles of the mask's q block, and the q-tile shown. Selections
 * are made on the worker pool, only while {@link #activeProperty()} is on (the NSA tab has been opened).
 */
public final class NsaModel {
    /** Above this many block_indices entries (tokens x heads x S) the selection is not made in the window. */
    static final long MAX_ENTRIES = 1L << 26;

    public enum Source {
        MASK("the mask's blocks"), RANDOM("random top-S"), SCORED("top-S of block scores");

        private final String label;

        Source(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** A made selection with its stats, or why there is none. */
    /**
     * @param walkSharing tokens per block over the GPU's shared-walk tiles ({@link saw.engine.gpu.NsaGpu#walkSharing}),
     *                    NaN where there is no selection or the walk cannot name its blocks
     */
    public record Result(NsaSelection selection, NsaStats stats, int head, String failure, double walkSharing) {}

    private final LayoutModel layout;
    private final Executor executor;
    private final ObjectProperty<Source> source = new SimpleObjectProperty<>(Source.MASK);
    private final IntegerProperty selected = new SimpleIntegerProperty(16);
    private final IntegerProperty seed = new SimpleIntegerProperty(1);
    private final IntegerProperty qTile = new SimpleIntegerProperty(0);
    private final BooleanProperty active = new SimpleBooleanProperty(false);
    private final ReadOnlyObjectWrapper<Result> result = new ReadOnlyObjectWrapper<>();
    private int generation;

    public NsaModel(LayoutModel layout, Executor executor) {
        this.layout = layout;
        this.executor = executor;
        layout.compiledProperty().addListener(o -> remake());
        layout.headProperty().addListener(o -> remake());
        layout.batchProperty().addListener(o -> remake());
        source.addListener(o -> remake());
        selected.addListener(o -> remake());
        seed.addListener(o -> remake());
        active.addListener(o -> remake());
    }

    public ObjectProperty<Source> sourceProperty() {
        return source;
    }

    /** S, the blocks per token of a drawn selection. */
    public IntegerProperty selectedProperty() {
        return selected;
    }

    public IntegerProperty seedProperty() {
        return seed;
    }

    public IntegerProperty qTileProperty() {
        return qTile;
    }

    public BooleanProperty activeProperty() {
        return active;
    }

    public ReadOnlyObjectProperty<Result> resultProperty() {
        return result.getReadOnlyProperty();
    }

    /** The q block of the compiled layout (the tile height), or 64 before one is compiled. */
    public int tileTokens() {
        LayoutModel.Compiled c = layout.compiled();
        return c == null ? 64 : c.layout().blockQ();
    }

    /** The shown q-tile of the current selection, or null. */
    public TileSelection tile() {
        Result r = result.get();
        if (r == null || r.selection() == null) {
            return null;
        }
        NsaSelection sel = r.selection();
        int tokens = tileTokens();
        int tiles = (sel.seqLen() + tokens - 1) / tokens;
        int q = Math.max(0, Math.min(qTile.get(), tiles - 1));
        int b = Math.min(layout.batchProperty().get(), sel.batch() - 1);
        return TileSelection.of(sel, b, r.head(), q * tokens, Math.min(sel.seqLen(), (q + 1) * tokens));
    }

    private void remake() {
        LayoutModel.Compiled c = layout.compiled();
        if (!active.get() || c == null) {
            return;
        }
        int mine = ++generation;
        Source src = source.get();
        int s = selected.get();
        long sd = seed.get();
        TileLayout lay = c.layout();
        int head = Math.min(layout.headProperty().get(), lay.dims().heads() - 1);
        CompletableFuture.supplyAsync(() -> make(lay, src, s, sd, head), executor).thenAccept(r -> Platform.runLater(() -> {
            if (mine == generation) {
                result.set(r);
            }
        }));
    }

    /** The selection of one layout: every head of the mask is its own kv head (group 1). */
    static Result make(TileLayout lay, Source src, int s, long seed, int head) {
        int seq = lay.dims().seqQ();
        int heads = lay.dims().heads();
        int batch = lay.dims().batch();
        int width = src == Source.MASK ? lay.numKvBlocks() : s;
        if ((long) batch * heads * seq * width > MAX_ENTRIES) {
            return new Result(null, null, head, "too large to show here (" + batch + " x " + seq + " tokens x " + heads
                    + " heads x up to " + width + " blocks); use saw bench --nsa", Double.NaN);
        }
        try {
            NsaSelection sel;
            switch (src) {
                case RANDOM:
                    sel = NsaSelections.random(batch, seq, heads, s, lay.blockKv(), seed);
                    break;
                case SCORED:
                    sel = NsaSelections.scored(batch, seq, heads, s, lay.blockKv(), 16, seed);
                    break;
                default:
                    sel = NsaSelections.fromMask(lay, heads, 1);
                    break;
            }
            return new Result(sel, NsaStats.of(sel, lay.blockQ()), head, null, NsaGpu.walkSharing(sel));
        } catch (BadSelection | IllegalArgumentException e) {
            return new Result(null, null, head, e.getMessage(), Double.NaN);
        }
    }
}
