package saw.engine.bench;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The first line of a results file: where and with what the rows were measured. GPU fields are empty strings when
 * the backend is not a GPU or the driver did not say.
 */
public record BenchEnvironment(String gpu, String driver, String cuda, String computeCapability, String jvm, String os,
                               String sawVersion, String gitCommit, String date, String backend, String device,
                               String command) {
    public BenchEnvironment {
        gpu = orEmpty(gpu);
        driver = orEmpty(driver);
        cuda = orEmpty(cuda);
        computeCapability = orEmpty(computeCapability);
        jvm = orEmpty(jvm);
        os = orEmpty(os);
        sawVersion = orEmpty(sawVersion);
        gitCommit = orEmpty(gitCommit);
        date = orEmpty(date);
        backend = Objects.requireNonNull(backend, "backend");
        device = orEmpty(device);
        command = orEmpty(command);
    }

    /** This JVM and build, now, for a backend; GPU fields empty (see {@link #withGpu}). */
    public static BenchEnvironment here(String backend, String device, String command) {
        String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" + System.getProperty("os.arch")
                + ", " + Runtime.getRuntime().availableProcessors() + " cpus)";
        return new BenchEnvironment("", "", "", "", jvm, os, BuildInfo.version(), BuildInfo.gitCommit(),
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), backend, device, command);
    }

    public BenchEnvironment withGpu(String gpu, String driver, String cuda, String computeCapability) {
        return new BenchEnvironment(gpu, driver, cuda, computeCapability, jvm, os, sawVersion, gitCommit, date, backend,
                device, command);
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
