package saw.app.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuException;
import saw.engine.gpu.GpuStatus;

/** {@code saw env}: what saw runs on. */
@Command(name = "env", mixinStandardHelpOptions = true,
        description = "Prints Java, the OS, the CUDA driver, the GPUs and the kernels this build holds.")
final class EnvCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.out.println("java:    " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + ")");
        System.out.println("os:      " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                + System.getProperty("os.arch") + "), " + Runtime.getRuntime().availableProcessors() + " cpus");
        GpuStatus status = GpuBackend.detect();
        System.out.println("cuda:    " + (status.driverVersion().isEmpty() ? "no driver" : "driver " + status.driverVersion()));
        if (status.devices().isEmpty()) {
            System.out.println("gpus:    none");
        } else {
            System.out.println("gpus:");
            for (String d : status.devices()) {
                System.out.println("  " + d);
            }
        }
        System.out.println("kernels: " + (status.kernelsBuilt() ? "built" : "not built (nvcc was missing at build time)"));
        if (status.usable()) {
            try (GpuBackend gpu = GpuBackend.open()) {
                List<String> names = gpu.kernelNames();
                System.out.println("  " + names.size() + " kernels load on GPU 0: " + String.join(" ", names));
            } catch (GpuException e) {
                System.out.println("  loading them failed: " + e.getMessage());
                return SawCli.INTERNAL_ERROR;
            }
        }
        System.out.println("gpu backend: " + status.message());
        return SawCli.OK;
    }
}
