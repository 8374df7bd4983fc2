package saw.ui.run;

import java.util.function.Supplier;
import saw.engine.attention.AttentionBackend;
import saw.remote.Target;

/**
 * A backend the run panel offers: its name, a sentence about where it runs (the GPU's name, or why there is none),
 * whether it can run here, and how to open it (on a worker thread).
 *
 * @param gpuMemoryBytes the memory of the GPU it runs on; 0 for the CPU (and for a remote target, whose GPU is
 *     checked there)
 * @param remote the SSH target a sweep runs on (through the saw pack there), or null for this machine
 */
public record BackendChoice(String name, String description, boolean usable, Supplier<AttentionBackend> open,
        long gpuMemoryBytes, Target remote) {
    public BackendChoice(String name, String description, boolean usable, Supplier<AttentionBackend> open, long gpuMemoryBytes) {
        this(name, description, usable, open, gpuMemoryBytes, null);
    }

    @Override
    public String toString() {
        return name + (usable ? "" : " (unavailable)");
    }
}
