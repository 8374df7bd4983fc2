package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How saw finds NCCL's library, and the sentences it says when it cannot (no GPU or NCCL needed). */
class NcclLocatorTest {
    private final List<String> asked = new ArrayList<>();

    private NcclLocator locator(Map<String, String> env, boolean onLoaderPath, List<String> pythonDirs, Set<String> files) {
        return new NcclLocator(env, name -> onLoaderPath && name.equals("libnccl.so.2"), script -> {
            asked.add(script);
            return pythonDirs;
        }, path -> files.contains(path.toString()));
    }

    @Test
    void theEnvironmentVariableWinsWhenItNamesAFile() {
        NcclLocator.Found f = locator(Map.of("SAW_NCCL_LIB", "/opt/nccl/libnccl.so.2"), true, List.of(),
                Set.of("/opt/nccl/libnccl.so.2")).find();
        assertEquals(new NcclLocator.Found("/opt/nccl/libnccl.so.2", "from SAW_NCCL_LIB"), f);
        assertEquals(List.of(), asked);
    }

    @Test
    void anEnvironmentVariableNamingNoFileIsOneSentence() {
        GpuException e = assertThrows(GpuException.class,
                () -> locator(Map.of("SAW_NCCL_LIB", "/nowhere/libnccl.so.2"), true, List.of(), Set.of()).find());
        assertEquals("SAW_NCCL_LIB names /nowhere/libnccl.so.2, which is not a file; point it at NCCL's libnccl.so.2 or "
                + "unset it", e.getMessage());
    }

    @Test
    void theLoaderPathComesBeforePython() {
        NcclLocator.Found f = locator(Map.of(), true, List.of("/site/nvidia/nccl/lib"), Set.of()).find();
        assertEquals(new NcclLocator.Found("libnccl.so.2", "on the loader path"), f);
        assertEquals(List.of(), asked);
    }

    @Test
    void pythonsNvidiaNcclPackageIsFoundWhereTorchKeepsIt() {
        String dir = "/usr/lib/python3/site-packages/nvidia/nccl/lib";
        NcclLocator.Found f = locator(Map.of("SAW_NCCL_LIB", " "), false, List.of("/elsewhere/nvidia/nccl/lib", dir + "\n"),
                Set.of(dir + "/libnccl.so.2")).find();
        assertEquals(new NcclLocator.Found(Path.of(dir, "libnccl.so.2").toString(), "from python3's nvidia-nccl package"), f);
        assertEquals(List.of(NcclLocator.PYTHON_QUERY), asked);
    }

    @Test
    void nothingFoundSaysWhatWasTriedInOneSentence() {
        GpuException none = assertThrows(GpuException.class, () -> locator(Map.of(), false, List.of(), Set.of()).find());
        assertEquals("NCCL was not found: SAW_NCCL_LIB is not set, libnccl.so.2 is not on the loader path (LD_LIBRARY_PATH, "
                + "ldconfig) and python3 could not be asked or has no nvidia-nccl package; set SAW_NCCL_LIB to the library's "
                + "path (a pip-installed torch ships it in site-packages/nvidia/nccl/lib)", none.getMessage());
        GpuException absent = assertThrows(GpuException.class,
                () -> locator(Map.of(), false, List.of("/site/nvidia/nccl/lib"), Set.of()).find());
        assertEquals("NCCL was not found: SAW_NCCL_LIB is not set, libnccl.so.2 is not on the loader path (LD_LIBRARY_PATH, "
                + "ldconfig) and python3's path has no nvidia/nccl/lib/libnccl.so.2; set SAW_NCCL_LIB to the library's path "
                + "(a pip-installed torch ships it in site-packages/nvidia/nccl/lib)", absent.getMessage());
    }

    @Test
    void theQueryScriptRunsUnderPythonAndPrintsCandidateDirectories() {
        // python3 is on this machine (and on the GPU machine); without the package it still lists sys.path candidates
        List<String> lines = NcclLocator.askPython(NcclLocator.PYTHON_QUERY);
        org.junit.jupiter.api.Assumptions.assumeFalse(lines.isEmpty(), "python3 is not available here");
        lines.forEach(l -> org.junit.jupiter.api.Assertions.assertTrue(l.endsWith("nvidia/nccl/lib") || l.endsWith("lib"), l));
    }

    @Test
    void ncclErrorsAndVersionsReadAsSentences() {
        assertEquals("an NCCL send of 64 bytes to rank 1 failed: NCCL error 3 (internal error)",
                Nccl.failure("an NCCL send of 64 bytes to rank 1", 3, "internal error"));
        assertEquals("2.27.3", Nccl.version(22703));
        assertEquals("2.8.4", Nccl.version(2804));
    }
}
