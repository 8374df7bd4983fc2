package saw.engine.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import jcuda.JCudaVersion;
import jcuda.LibUtils;
import jcuda.driver.JCudaDriver;
import saw.engine.io.AtomicFiles;

/**
 * Starting JCuda's driver API ({@link #initDriver()}, for the probe and the device alike), with JCuda's driver library
 * put where JCuda loads it from before JCuda looks. When JCuda first loads (the first call into {@code JCudaDriver}) it
 * writes the library from the natives jar to {@code java.io.tmpdir} if no file of that name is there, in place, and
 * then maps it: a second JVM starting at the same moment finds the name, maps the half-written file and dies with
 * SIGBUS in the dynamic loader (seen with twelve {@code saw verify} processes started together on a fresh machine),
 * and a copy cut short by a crash breaks every later start. {@link #prepare()} writes the library there first with
 * {@link AtomicFiles} (a hidden copy renamed over the name in one step), unless the file there already has the jar's
 * bytes, so JCuda always finds a whole library.
 */
final class JCudaNatives {
    private static boolean prepared;

    private JCudaNatives() {}

    /**
     * The one way saw starts JCuda's driver API: the library put in place, exceptions on, {@code cuInit}. Throws what
     * JCuda throws (UnsatisfiedLinkError when a library is missing, CudaException when the driver refuses).
     */
    static void initDriver() {
        prepare();
        JCudaDriver.setExceptionsEnabled(true);
        JCudaDriver.cuInit(0);
    }

    /** Once per JVM, before the first JCuda driver call; any failure is left for JCuda's own load to report. */
    static synchronized void prepare() {
        if (prepared) {
            return;
        }
        prepared = true;
        try {
            place(Path.of(System.getProperty("java.io.tmpdir")));
        } catch (IOException | RuntimeException | LinkageError e) {
            // JCuda loads the library itself as before, and says what is wrong if it cannot
        }
    }

    /** The library's file name as JCuda names it in the natives jar and in the temporary folder. */
    static String fileName() {
        return LibUtils.createLibraryFileName(LibUtils.createPlatformLibraryName("JCudaDriver-" + JCudaVersion.get()));
    }

    /**
     * Makes {@code dir/fileName()} a whole copy of the jar's library; returns false when the natives jar has none for
     * this platform (JCuda then reports that).
     */
    static boolean place(Path dir) throws IOException {
        String name = fileName();
        byte[] library;
        try (InputStream in = LibUtils.class.getResourceAsStream("/lib/" + name)) {
            if (in == null) {
                return false;
            }
            library = in.readAllBytes();
        }
        Path target = dir.resolve(name);
        if (Files.isRegularFile(target) && Files.size(target) == library.length
                && Arrays.equals(Files.readAllBytes(target), library)) {
            return true;
        }
        Files.createDirectories(dir);
        AtomicFiles.write(target, out -> out.write(library));
        return true;
    }
}
