package saw.ui.run;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.concurrent.Task;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;
import saw.engine.config.MaskConfig;
import saw.engine.gpu.GpuBackend;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.tune.GpuCandidates;
import saw.engine.tune.MaskSignature;
import saw.engine.tune.TuneCache;
import saw.engine.tune.TuneChoice;
import saw.engine.tune.TuneKey;
import saw.engine.tune.TuneResult;
import saw.engine.tune.Tuner;

/**
 * The run panel's "recommended tile" and its Tune button: what the tune cache holds for the current mask and
 * problem (from any GPU, naming it), and a tune of both passes on GPU 0 as a {@link Task} with progress and cancel.
 */
public final class TuneModel {
    private final Executor executor;
    private final ReadOnlyStringWrapper recommended = new ReadOnlyStringWrapper(this, "recommended", "");
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(this, "progress");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "");
    private final RunModel run;
    private Task<String> task;

    /** Follows the run panel's config and shape settings; tunes run on {@code executor}. */
    public TuneModel(Executor executor, RunModel run) {
        this.executor = executor;
        this.run = run;
        for (javafx.beans.Observable setting : java.util.List.of(run.configProperty(), run.batchProperty(), run.headsProperty(),
                run.kvHeadsProperty(), run.headDimProperty(), run.dtypeProperty(), run.sinksProperty())) {
            setting.addListener(o -> refresh());
        }
        refresh();
    }

    /** The run panel's problem with the config's sizes where a setting is 0, or null without a valid one. */
    private Problem problem() {
        MaskConfig c = run.configProperty().get();
        if (c == null) {
            return null;
        }
        int h = run.headsProperty().get() > 0 ? run.headsProperty().get() : c.heads();
        int hkv = run.kvHeadsProperty().get() > 0 ? run.kvHeadsProperty().get() : h;
        int b = run.batchProperty().get() > 0 ? run.batchProperty().get() : c.batch();
        try {
            AttentionProblem p = AttentionProblem.of(b, h, hkv, c.seqLenQ(), c.seqLenKv(), run.headDimProperty().get(),
                    run.dtypeProperty().get());
            return new Problem(p, BoundMask.bind(c.mask(), new Dims(c.seqLenQ(), c.seqLenKv(), b, h)));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private record Problem(AttentionProblem p, BoundMask mask) {}

    /** Looks the run panel's problem up in the tune cache. */
    public void refresh() {
        Problem x = problem();
        if (x == null) {
            recommended.set("");
        } else {
            refresh(x.p(), x.mask());
        }
    }

    /** Tunes the run panel's problem. */
    public void tune() {
        Problem x = problem();
        if (x == null) {
            status.set("nothing to tune: no valid config and shape");
        } else {
            tune(x.p(), x.mask());
        }
    }

    /** "fwd 128x128 wgmma-pp (1.31x the default), bwd ..." or why there is none. */
    public ReadOnlyStringProperty recommendedProperty() {
        return recommended.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** Looks the problem up in the tune cache (call on the FX thread when the config or shape changes). */
    void refresh(AttentionProblem p, BoundMask mask) {
        recommended.set(recommended(new TuneCache(TuneCache.defaultFile(), w -> {
            if (!status.isBound()) {
                status.set(w);
            }
        }).entries(), p, mask, run.sinksProperty().get()));
    }

    /**
     * The cached choices for both passes of this problem, from any GPU, in one line; runs with learned sinks have
     * entries of their own ({@code saw tune --sinks}).
     */
    static String recommended(Map<String, TuneChoice> entries, AttentionProblem p, BoundMask mask, boolean sinks) {
        MaskSignature sig = MaskSignature.of(mask);
        StringBuilder s = new StringBuilder();
        for (Pass pass : Pass.values()) {
            String tail = "|" + TuneKey.of("any", pass, p, sinks, sig).withoutDevice();
            for (Map.Entry<String, TuneChoice> e : entries.entrySet()) {
                if (e.getKey().endsWith(tail)) {
                    TuneChoice c = e.getValue();
                    s.append(s.length() == 0 ? "" : "; ").append(String.format(Locale.ROOT, "%s %s (%.2fx the default, %s)",
                            pass.label(), c.winner(), c.speedupOverDefault(), e.getKey().substring(0, e.getKey().indexOf('|'))));
                    break;
                }
            }
        }
        return s.length() == 0 ? "not tuned for this mask and shape" + (sinks ? " with learned sinks" : "") : s.toString();
    }

    /** Tunes both passes on GPU 0 and stores the winners; progress and status follow the task. */
    void tune(AttentionProblem p, BoundMask mask) {
        if (running.get()) {
            return;
        }
        boolean sinks = run.sinksProperty().get();
        Task<String> t = new Task<>() {
            @Override
            protected String call() throws Exception {
                StringBuilder done = new StringBuilder();
                try (GpuBackend gpu = GpuBackend.open()) {
                    TuneCache cache = new TuneCache(TuneCache.defaultFile(), w -> updateMessage(w));
                    Pass[] passes = Pass.values();
                    for (int i = 0; i < passes.length; i++) {
                        int at = i;
                        updateMessage("tuning the " + passes[i].label() + " pass");
                        TuneResult r = Tuner.tune(new GpuCandidates(gpu), p, mask, passes[i], sinks, 0,
                                x -> updateProgress(at + x, passes.length), this::isCancelled);
                        cache.put(r.key(), r.choice(java.time.Instant.now().toString()));
                        done.append(String.format(Locale.ROOT, "%s %s in %.1f s; ", passes[i].label(), r.winner().candidate(),
                                r.seconds()));
                    }
                }
                return done.toString();
            }
        };
        progress.bind(t.progressProperty());
        status.bind(t.messageProperty());
        running.set(true);
        t.setOnSucceeded(e -> finish("tuned: " + t.getValue(), p, mask));
        t.setOnCancelled(e -> finish("tune cancelled", p, mask));
        t.setOnFailed(e -> finish("tune failed: " + t.getException().getMessage(), p, mask));
        task = t;
        executor.execute(t);
    }

    public void cancel() {
        if (task != null) {
            task.cancel();
        }
    }

    private void finish(String message, AttentionProblem p, BoundMask mask) {
        progress.unbind();
        status.unbind();
        running.set(false);
        task = null;
        refresh(p, mask);
        status.set(message);
    }
}
