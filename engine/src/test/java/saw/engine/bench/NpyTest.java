package saw.engine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpyTest {
    @TempDir
    Path dir;

    @Test
    void headerIsAlignedAndDataIsLittleEndianRowMajor() throws Exception {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int trial = 0; trial < 50; trial++) {
            int rank = rnd.nextInt(5);
            int[] shape = new int[rank];
            int n = 1;
            for (int i = 0; i < rank; i++) {
                shape[i] = rnd.nextInt(6);
                n *= shape[i];
            }
            float[] data = new float[n];
            for (int i = 0; i < n; i++) {
                data[i] = (float) rnd.nextGaussian();
            }
            Path f = dir.resolve("a" + trial + ".npy");
            Npy.writeFloat32(f, shape, data);
            byte[] bytes = Files.readAllBytes(f);
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals((byte) 0x93, b.get(0));
            assertEquals("NUMPY", new String(bytes, 1, 5, StandardCharsets.US_ASCII));
            int headerLen = Short.toUnsignedInt(b.getShort(8));
            int dataStart = 10 + headerLen;
            String ctx = "seed " + seed + " shape " + java.util.Arrays.toString(shape);
            assertEquals(0, dataStart % 64, ctx);
            String dict = new String(bytes, 10, headerLen, StandardCharsets.US_ASCII);
            assertTrue(dict.endsWith("\n") && dict.startsWith("{'descr': '<f4', 'fortran_order': False, 'shape': ("), ctx + dict);
            assertEquals(dataStart + 4L * n, bytes.length, ctx);
            for (int i = 0; i < n; i++) {
                assertEquals(data[i], b.getFloat(dataStart + 4 * i), ctx);
            }
        }
    }

    /** Where python3 with numpy is installed, numpy itself reads the files back. */
    @Test
    void numpyReadsWhatWeWrite() throws Exception {
        Assumptions.assumeTrue(hasNumpy(), "python3 with numpy is not installed");
        float[] f = {1.5f, -2f, 3.25f, 0f, 1e-3f, 7f};
        Npy.writeFloat32(dir.resolve("f.npy"), new int[] {2, 3}, f);
        Npy.writeInt32(dir.resolve("i.npy"), new int[] {3}, new int[] {-1, 0, 123456789});
        String script = "import numpy as np,sys\n"
                + "a=np.load(sys.argv[1]); b=np.load(sys.argv[2])\n"
                + "print(a.dtype, a.shape, a.tolist(), b.dtype, b.shape, b.tolist())\n";
        Process p = new ProcessBuilder("python3", "-c", script, dir.resolve("f.npy").toString(), dir.resolve("i.npy").toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals("float32 (2, 3) [[1.5, -2.0, 3.25], [0.0, 0.0010000000474974513, 7.0]] int32 (3,) [-1, 0, 123456789]", out);
    }

    private static boolean hasNumpy() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import numpy").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
