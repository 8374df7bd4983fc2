package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading NCCL through JNA on this machine (which has no NCCL): the process setting and the load failure's sentence. */
class NcclLoadTest {
    private interface Getenv extends Library {
        String getenv(String name);
    }

    @Test
    void multicastIsSwitchedOffInTheProcessEnvironmentNcclReads() {
        Nccl.keepMulticastOff();
        Getenv c = Native.load("c", Getenv.class);
        assertEquals("0", c.getenv(Nccl.NVLS));
    }

    @Test
    void aFileThatIsNotALibraryFailsWithOneSentenceNamingIt(@TempDir Path dir) throws Exception {
        Path fake = dir.resolve("libnccl.so.2");
        Files.writeString(fake, "not a shared library");
        NcclLocator locator = new NcclLocator(Map.of(NcclLocator.ENV, fake.toString()), n -> false, s -> List.of(),
                Files::isRegularFile);
        GpuException e = assertThrows(GpuException.class, () -> Nccl.load(locator));
        assertTrue(e.getMessage().startsWith("NCCL at " + fake + " (from SAW_NCCL_LIB) could not be loaded: "), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }

    @Test
    void aRealNcclReportsItsVersionAndItsErrorsAsSentences() {
        Nccl nccl;
        try {
            nccl = Nccl.load(NcclLocator.system());
        } catch (GpuException e) {
            Assumptions.assumeTrue(false, "no NCCL here: " + e.getMessage());
            return;
        }
        assertTrue(nccl.describe().matches("NCCL \\d+\\.\\d+\\.\\d+ \\(.*libnccl\\.so\\.2, .*, NCCL_NVLS_ENABLE=0\\)"),
                nccl.describe());
        if (GpuBackend.detect().usable()) {
            for (com.sun.jna.Pointer comm : nccl.initAll(new int[] {0})) {
                nccl.destroyQuietly(comm);
            }
        } else {
            GpuException e = assertThrows(GpuException.class, () -> nccl.initAll(new int[] {0}));
            assertTrue(e.getMessage().matches("creating NCCL communicators for GPUs \\[0\\] failed: NCCL error \\d+ \\(.+\\)"),
                    e.getMessage());
        }
    }
}
