package saw.ui.model;

import saw.engine.config.MaskConfig;
import java.util.concurrent.Executor;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.value.ObservableValue;
import javafx.concurrent.Task;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/**
 * Compiles the composition being edited into a tile layout, off the FX thread, whenever it changes and has no
 * problems. Edits that arrive while a compile runs are coalesced: only the newest waits. The last layout that
 * compiled stays in {@link #compiledProperty()} while the composition has problems, so the grid keeps showing it.
 * Also holds the batch entry and head whose grid is shown.
 */
public final class LayoutModel {
    /** A compiled composition and what the inspector shows about it. */
    public record Compiled(MaskConfig composition, TileLayout layout, LayoutStats stats, double compileMillis) {}

    private final Executor executor;
    private final ReadOnlyObjectWrapper<Compiled> compiled = new ReadOnlyObjectWrapper<>(this, "compiled");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyStringWrapper failure = new ReadOnlyStringWrapper(this, "failure", "");
    private final IntegerProperty batch = new SimpleIntegerProperty(this, "batch");
    private final IntegerProperty head = new SimpleIntegerProperty(this, "head");
    private final ReadOnlyIntegerWrapper variant = new ReadOnlyIntegerWrapper(this, "variant");
    private MaskConfig pending;

    private final ObservableValue<MaskConfig> source;

    public LayoutModel(ObservableValue<MaskConfig> source, Executor executor) {
        this.executor = executor;
        this.source = source;
        source.addListener((obs, old, now) -> request(now));
        compiled.addListener((obs, old, now) -> {
            clampSelection();
            updateVariant();
        });
        batch.addListener((obs, old, now) -> updateVariant());
        head.addListener((obs, old, now) -> updateVariant());
        request(source.getValue());
    }

    public ReadOnlyObjectProperty<Compiled> compiledProperty() {
        return compiled.getReadOnlyProperty();
    }

    public Compiled compiled() {
        return compiled.get();
    }

    /** True while a compile runs. */
    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** The message of the last compile that failed inside the engine, or "". */
    public ReadOnlyStringProperty failureProperty() {
        return failure.getReadOnlyProperty();
    }

    public IntegerProperty batchProperty() {
        return batch;
    }

    public IntegerProperty headProperty() {
        return head;
    }

    /** The variant (distinct grid) of the selected batch entry and head. */
    public ReadOnlyIntegerProperty variantProperty() {
        return variant.getReadOnlyProperty();
    }

    /** The tile of the shown variant at (qb, kb) of the current layout, or null when none is compiled. */
    public TileInfo describe(int qb, int kb) {
        Compiled c = compiled.get();
        return c == null ? null : TileInfo.of(c.layout(), variant.get(), qb, kb);
    }

    /** The tile's pairs one by one (at most 512 x 512 of them). */
    public TokenTile tokens(int qb, int kb) {
        Compiled c = compiled.get();
        return c == null ? null : TokenTile.of(c.layout().mask(), variant.get(), describe(qb, kb));
    }

    private void request(MaskConfig c) {
        if (c == null || !c.problems().isEmpty()) {
            return;
        }
        if (busy.get()) {
            pending = c;
            return;
        }
        start(c);
    }

    private void start(MaskConfig c) {
        busy.set(true);
        Task<Compiled> task = new Task<>() {
            @Override
            protected Compiled call() {
                return compile(c);
            }
        };
        task.setOnSucceeded(e -> {
            failure.set("");
            compiled.set(task.getValue());
            next();
        });
        task.setOnFailed(e -> {
            Throwable t = task.getException();
            failure.set(t.getMessage() == null ? t.toString() : t.getMessage());
            next();
        });
        executor.execute(task);
    }

    private void next() {
        MaskConfig c = pending;
        pending = null;
        if (c != null) {
            start(c);
        } else {
            busy.set(false);
        }
    }

    /**
     * Binds and compiles on the calling thread; the view-model calls it from a task. Work that would not fit in the
     * heap or would take hours is refused first, with the estimate (saw.engine.guard.TooLarge).
     */
    public static Compiled compile(MaskConfig c) {
        SizeGuard.compile(c).orThrow();
        SizeGuard.compileTime(c).orThrow();
        long t0 = System.nanoTime();
        TileLayout layout = BoundMask.bind(c.mask(), c.dims()).compile(c.block().q(), c.block().kv());
        double ms = (System.nanoTime() - t0) / 1e6;
        return new Compiled(c, layout, LayoutStats.of(layout), ms);
    }

    /** Keeps the head and batch shown inside the sizes, once the layout of the config being edited has arrived. */
    private void clampSelection() {
        Compiled c = compiled.get();
        if (c == null || !c.composition().equals(source.getValue())) {
            return;
        }
        if (batch.get() >= c.layout().dims().batch()) {
            batch.set(0);
        }
        if (head.get() >= c.layout().dims().heads()) {
            head.set(0);
        }
    }

    private void updateVariant() {
        Compiled c = compiled.get();
        variant.set(c == null ? 0 : c.layout().mask().variantOf(batch.get(), head.get()));
    }
}
