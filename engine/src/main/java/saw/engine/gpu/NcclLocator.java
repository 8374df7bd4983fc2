package saw.engine.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Finds NCCL's shared library, in this order: the file {@code SAW_NCCL_LIB} names; {@code libnccl.so.2} on the
 * dynamic loader's path (LD_LIBRARY_PATH, ldconfig); the {@code nvidia-nccl} wheel of the python3 on the PATH (where
 * a pip-installed torch keeps it: {@code site-packages/nvidia/nccl/lib/libnccl.so.2}), asked of python3 itself. The
 * first that exists wins; when none does, {@link #find} says in one sentence what was tried.
 */
final class NcclLocator {
    static final String ENV = "SAW_NCCL_LIB";
    static final String SONAME = "libnccl.so.2";
    /** Prints the directory of every nvidia/nccl/lib under python's import path, one a line; prints nothing without it. */
    static final String PYTHON_QUERY = "import os,sys\n"
            + "try:\n"
            + "    import nvidia.nccl as n\n"
            + "    [print(os.path.join(p, 'lib')) for p in n.__path__]\n"
            + "except Exception:\n"
            + "    pass\n"
            + "for p in sys.path:\n"
            + "    print(os.path.join(p, 'nvidia', 'nccl', 'lib'))\n";

    /** Where the library was found, and how (for the run's report). */
    record Found(String library, String how) {}

    private final Map<String, String> env;
    private final Predicate<String> loaderHas;
    private final Function<String, List<String>> python;
    private final Predicate<Path> exists;

    NcclLocator(Map<String, String> env, Predicate<String> loaderHas, Function<String, List<String>> python,
            Predicate<Path> exists) {
        this.env = env;
        this.loaderHas = loaderHas;
        this.python = python;
        this.exists = exists;
    }

    /** On this machine: the process environment, JNA's loader, python3 on the PATH. */
    static NcclLocator system() {
        return new NcclLocator(System.getenv(), NcclLocator::loadable, NcclLocator::askPython, Files::isRegularFile);
    }

    /**
     * The library to load.
     *
     * @throws GpuException with one sentence naming what was tried when it is not found
     */
    Found find() {
        String set = env.get(ENV);
        if (set != null && !set.isBlank()) {
            if (!exists.test(Path.of(set))) {
                throw new GpuException(ENV + " names " + set + ", which is not a file; point it at NCCL's " + SONAME
                        + " or unset it");
            }
            return new Found(set, "from " + ENV);
        }
        if (loaderHas.test(SONAME)) {
            return new Found(SONAME, "on the loader path");
        }
        List<String> dirs = python.apply(PYTHON_QUERY);
        for (String dir : dirs) {
            Path lib = Path.of(dir.strip()).resolve(SONAME);
            if (exists.test(lib)) {
                return new Found(lib.toString(), "from python3's nvidia-nccl package");
            }
        }
        throw new GpuException("NCCL was not found: " + ENV + " is not set, " + SONAME + " is not on the loader path "
                + "(LD_LIBRARY_PATH, ldconfig) and " + (dirs.isEmpty() ? "python3 could not be asked or has no nvidia-nccl "
                + "package" : "python3's path has no nvidia/nccl/lib/" + SONAME) + "; set " + ENV + " to the library's path "
                + "(a pip-installed torch ships it in site-packages/nvidia/nccl/lib)");
    }

    private static boolean loadable(String name) {
        try {
            com.sun.jna.NativeLibrary.getInstance(name);
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** The lines python3 prints for {@code script}, or none when python3 is missing, fails or takes over 20 s. */
    static List<String> askPython(String script) {
        Process p;
        try {
            p = new ProcessBuilder("python3", "-c", script).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            return List.of();
        }
        try (InputStream out = p.getInputStream()) {
            p.getOutputStream().close();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return List.of();
            }
            String text = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            List<String> lines = new ArrayList<>();
            text.lines().filter(l -> !l.isBlank()).forEach(lines::add);
            return p.exitValue() == 0 ? lines : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return List.of();
        }
    }
}
