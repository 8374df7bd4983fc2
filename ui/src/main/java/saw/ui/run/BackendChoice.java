package saw.ui.run;

import java.util.function.Supplier;
import saw.engine.attention.AttentionBackend;

/**
 * A backend the run panel offers: its name, a sentence about where it runs (the GPU's name, or why there is none),
 * whether it can run here, and how to open it (on a worker thread).
 */
public record BackendChoice(String name, String description, boolean usable, Supplier<AttentionBackend> open) {
    @Override
    public String toString() {
        return name + (usable ? "" : " (unavailable)");
    }
}
