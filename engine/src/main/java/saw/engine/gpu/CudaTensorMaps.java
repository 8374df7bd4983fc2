package saw.engine.gpu;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.util.Arrays;
import jcuda.CudaException;
import jcuda.driver.CUresult;

/**
 * {@code cuTensorMapEncodeTiled} from the CUDA driver library, through JNA: JCuda 12.6 does not bind it. The driver
 * library is the one JCuda already loaded into this process, so the call acts on the same driver.
 */
final class CudaTensorMaps {
    /** The size of a CUtensorMap. */
    static final int BYTES = 128;

    // CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill
    private static final int DATA_TYPE_FLOAT16 = 6;
    private static final int DATA_TYPE_BFLOAT16 = 9;
    private static final int INTERLEAVE_NONE = 0;
    private static final int SWIZZLE_128B = 3;
    private static final int L2_PROMOTION_256B = 3;
    private static final int OOB_FILL_ZEROS = 0;

    private interface CudaLibrary extends Library {
        int cuTensorMapEncodeTiled(Pointer tensorMap, int dataType, int rank, Pointer globalAddress, long[] globalDim,
                                   long[] globalStrides, int[] boxDim, int[] elementStrides, int interleave, int swizzle,
                                   int l2Promotion, int oobFill);
    }

    private static volatile CudaLibrary lib;

    private CudaTensorMaps() {}

    private static CudaLibrary lib() {
        CudaLibrary l = lib;
        if (l == null) {
            synchronized (CudaTensorMaps.class) {
                if (lib == null) {
                    String name = System.getProperty("os.name", "").startsWith("Windows") ? "nvcuda" : "libcuda.so.1";
                    try {
                        lib = Native.load(name, CudaLibrary.class);
                    } catch (UnsatisfiedLinkError e) {
                        throw new CudaException("the CUDA driver library " + name + " could not be loaded for "
                                + "cuTensorMapEncodeTiled: " + e.getMessage());
                    }
                }
                l = lib;
            }
        }
        return l;
    }

    /**
     * The 128 bytes of the tensor map of {@code map} over the device memory at {@code address}.
     *
     * @throws CudaException named by the CUDA error the driver returns
     */
    static byte[] encode(long address, TileMap map) {
        int rank = map.dims().length;
        int[] elementStrides = new int[rank];
        Arrays.fill(elementStrides, 1);
        try (Memory out = new Memory(BYTES + 64)) {
            Pointer aligned = out.align(64);
            int r = lib().cuTensorMapEncodeTiled(aligned, map.bf16() ? DATA_TYPE_BFLOAT16 : DATA_TYPE_FLOAT16, rank,
                    new Pointer(address), map.dims(), map.strides(), map.box(), elementStrides, INTERLEAVE_NONE,
                    SWIZZLE_128B, L2_PROMOTION_256B, OOB_FILL_ZEROS);
            if (r != 0) {
                throw new CudaException(CUresult.stringFor(r));
            }
            return aligned.getByteArray(0, BYTES);
        }
    }
}
