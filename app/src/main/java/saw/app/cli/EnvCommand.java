package saw.app.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuException;
import saw.engine.gpu.GpuStatus;
import saw.engine.gpu.RingGpus;

/** {@code saw env}: what saw runs on. */
@Command(name = "env", mixinStandardHelpOptions = true,
        description = "Prints Java, the OS, the CUDA driver, the GPUs and the kernels this build holds.")
final class EnvCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RemoteOptions remote;

    @Override
    public Integer call() {
        if (remote.active()) {
            return remote.runElsewhere(spec);
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            return print(out);
        } finally {
            out.flush();
        }
    }

    private static int print(PrintWriter out) {
        out.println("java:    " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + ")");
        out.println("os:      " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                + System.getProperty("os.arch") + "), " + Runtime.getRuntime().availableProcessors() + " cpus");
        GpuStatus status = GpuBackend.detect();
        out.println("cuda:    " + (status.driverVersion().isEmpty() ? "no driver" : "driver " + status.driverVersion()));
        if (status.devices().isEmpty()) {
            out.println("gpus:    none");
        } else {
            out.println("gpus:");
            for (String d : status.devices()) {
                out.println("  " + d);
            }
        }
        out.println("kernels: " + (status.kernelsBuilt() ? "built" : "not built (nvcc was missing at build time)"));
        try {
            out.println("  families: " + GpuBackend.kernelFamilies());
        } catch (IllegalArgumentException e) {
            out.println("  families: " + e.getMessage());
            return SawCli.BAD_INPUT;
        }
        if (status.usable()) {
            try (GpuBackend gpu = GpuBackend.open()) {
                List<String> names = gpu.kernelNames();
                out.println("  " + names.size() + " kernels load on GPU 0: " + String.join(" ", names));
            } catch (GpuException e) {
                out.println("  loading them failed: " + e.getMessage());
                return SawCli.INTERNAL_ERROR;
            }
        }
        out.println("gpu backend: " + status.message());
        out.println("nccl (ring-run --gpus): " + RingGpus.ncclStatus());
        return SawCli.OK;
    }
}
