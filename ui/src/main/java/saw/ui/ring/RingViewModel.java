package saw.ui.ring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.concurrent.Task;
import saw.engine.mask.TileLayout;
import saw.engine.ring.RingModel;
import saw.engine.ring.RingPlan;
import saw.engine.ring.RingPlanner;
import saw.engine.ring.RingScheme;
import saw.ui.model.LayoutModel;

/**
 * The Ring view's view-model: plans the current layout over a ring of devices with the chosen scheme (and every
 * scheme, for the comparison) on a worker whenever the layout, the device count or the scheme changes. The step
 * chooses which tiles the view highlights; it stays within the ring.
 */
public final class RingViewModel {
    private final LayoutModel layout;
    private final Executor executor;
    private final IntegerProperty devices = new SimpleIntegerProperty(this, "devices", 8);
    private final ObjectProperty<RingScheme> scheme = new SimpleObjectProperty<>(this, "scheme", RingScheme.BALANCED);
    private final IntegerProperty step = new SimpleIntegerProperty(this, "step", 0);
    private final ReadOnlyObjectWrapper<RingPlan> plan = new ReadOnlyObjectWrapper<>(this, "plan");
    private final ObservableList<RingPlan> comparison = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper failure = new ReadOnlyStringWrapper(this, "failure", "");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private long generation;

    public RingViewModel(LayoutModel layout, Executor executor) {
        this.layout = layout;
        this.executor = executor;
        layout.compiledProperty().addListener(o -> replan());
        devices.addListener(o -> replan());
        scheme.addListener(o -> replan());
        step.addListener(o -> {
            RingPlan p = plan.get();
            int max = p == null ? 0 : p.devices() - 1;
            if (step.get() < 0 || step.get() > max) {
                step.set(Math.max(0, Math.min(max, step.get())));
            }
        });
        replan();
    }

    public IntegerProperty devicesProperty() {
        return devices;
    }

    public ObjectProperty<RingScheme> schemeProperty() {
        return scheme;
    }

    public IntegerProperty stepProperty() {
        return step;
    }

    /** The plan of the chosen scheme, or null when there is none (then {@link #failureProperty()} says why). */
    public ReadOnlyObjectProperty<RingPlan> planProperty() {
        return plan.getReadOnlyProperty();
    }

    /** Every scheme that can split the layout over the devices, worst predicted wall time first. */
    public ObservableList<RingPlan> comparison() {
        return FXCollections.unmodifiableObservableList(comparison);
    }

    public ReadOnlyStringProperty failureProperty() {
        return failure.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** Plans on the executor; a newer request makes an older result stale, and it is dropped. */
    private void replan() {
        LayoutModel.Compiled c = layout.compiled();
        if (c == null) {
            return;
        }
        long mine = ++generation;
        TileLayout l = c.layout();
        int n = devices.get();
        RingScheme chosen = scheme.get();
        RingModel model = RingModel.defaults(l.dims().heads());
        busy.set(true);
        Task<List<RingPlan>> t = new Task<>() {
            @Override
            protected List<RingPlan> call() {
                List<RingPlan> out = new ArrayList<>();
                out.add(RingPlanner.plan(l, n, chosen, model));
                for (RingScheme s : RingScheme.values()) {
                    try {
                        out.add(s == chosen ? out.get(0) : RingPlanner.plan(l, n, s, model));
                    } catch (IllegalArgumentException e) {
                        // a scheme that cannot split this layout is left out of the comparison
                    }
                }
                return out;
            }
        };
        t.setOnSucceeded(e -> {
            if (mine != generation) {
                return;
            }
            List<RingPlan> got = t.getValue();
            failure.set("");
            plan.set(got.get(0));
            List<RingPlan> compared = new ArrayList<>(got.subList(1, got.size()));
            compared.sort((a, b) -> Double.compare(b.predicted().wallMs(), a.predicted().wallMs()));
            comparison.setAll(compared);
            step.set(Math.min(step.get(), n - 1));
            busy.set(false);
        });
        t.setOnFailed(e -> {
            if (mine != generation) {
                return;
            }
            Throwable x = t.getException();
            plan.set(null);
            comparison.clear();
            failure.set(x instanceof IllegalArgumentException ? "Devices: " + x.getMessage() : "Planning failed: " + x);
            busy.set(false);
        });
        executor.execute(t);
    }
}
