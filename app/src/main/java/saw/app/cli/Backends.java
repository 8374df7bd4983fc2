package saw.app.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import saw.engine.attention.AttentionBackend;
import saw.engine.bench.BenchEnvironment;
import saw.engine.cpu.CpuBackend;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuException;
import saw.engine.gpu.GpuStatus;

/** Opens attention backends by their command-line name and describes where they run for results headers. */
final class Backends {
    private static final String COMPUTE_CAPABILITY = ", compute capability ";

    private Backends() {}

    /**
     * The backend {@code --backend name} names.
     *
     * @throws BadInput naming the option and saying why the backend cannot be used here
     */
    static AttentionBackend open(String name) {
        try {
            return byName(name);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--backend " + name + ": " + e.getMessage());
        }
    }

    private static AttentionBackend byName(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "cpu":
                return new CpuBackend();
            case "gpu":
                try {
                    return GpuBackend.open();
                } catch (GpuException e) {
                    throw new IllegalArgumentException(e.getMessage());
                }
            default:
                throw new IllegalArgumentException("'" + name + "' is not one of gpu, cpu");
        }
    }

    /** This JVM and build, with the GPU's name, driver, CUDA version and compute capability for a GPU backend. */
    static BenchEnvironment environment(AttentionBackend backend, String command) {
        BenchEnvironment env = BenchEnvironment.here(backend.name(), backend.device(), "saw " + command);
        if (!(backend instanceof GpuBackend)) {
            return env;
        }
        GpuStatus status = GpuBackend.detect();
        String gpu = backend.device();
        String cc = "";
        if (!status.devices().isEmpty()) {
            // "0: NVIDIA H200, compute capability 9.0, 139.8 GiB"
            String first = status.devices().get(0);
            int at = first.indexOf(COMPUTE_CAPABILITY);
            if (at > 0) {
                gpu = first.substring(first.indexOf(':') + 1, at).trim();
                String rest = first.substring(at + COMPUTE_CAPABILITY.length());
                cc = rest.contains(",") ? rest.substring(0, rest.indexOf(',')).trim() : rest.trim();
            }
        }
        return env.withGpu(gpu, nvidiaDriver(), status.driverVersion(), cc);
    }

    /** The NVIDIA driver version from nvidia-smi, or "" when it is not there (the CUDA driver API does not say). */
    private static String nvidiaDriver() {
        try {
            Process p = new ProcessBuilder("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "";
            }
            return out.lines().findFirst().orElse("").trim();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
