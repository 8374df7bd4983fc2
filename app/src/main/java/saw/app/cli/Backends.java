package saw.app.cli;

import saw.engine.attention.AttentionBackend;
import saw.engine.bench.BenchEnvironment;

/** Opens attention backends by their command-line name and describes where they run for results headers. */
final class Backends {
    private Backends() {}

    /**
     * @throws IllegalArgumentException saying why the backend cannot be used here
     */
    static AttentionBackend open(String name) {
        // the CPU and GPU backends arrive with the gpu branch (saw.engine.cpu, saw.engine.gpu)
        throw new IllegalArgumentException("no '" + name + "' backend in this build");
    }

    static BenchEnvironment environment(AttentionBackend backend, String command) {
        return BenchEnvironment.here(backend.name(), backend.device(), "saw " + command);
    }
}
