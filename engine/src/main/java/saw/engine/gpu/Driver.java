package saw.engine.gpu;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * The CUDA driver calls saw makes, one method each, so that tests can put a fake driver in JCuda's place and provoke
 * every fault (out of memory, failed launches, missing kernels, lost contexts) without a GPU. Calls act on the
 * current device's primary context and throw {@link jcuda.CudaException} naming the CUDA error, as JCuda does with
 * exceptions enabled.
 */
interface Driver {
    /** Initialises the driver and makes GPU {@code ordinal}'s primary context current. */
    void open(int ordinal);

    /** Makes the context current on the calling thread. */
    void makeCurrent();

    /** Destroys the context and everything in it (after a fault that leaves it unusable) and makes a fresh one current. */
    void reset();

    /** Releases the context. */
    void close();

    /** The most shared memory one block may opt in to, in bytes. */
    int maxSharedPerBlockOptIn();

    /** The GPU's streaming multiprocessors. */
    int multiProcessors();

    /** Free and total device memory, in bytes. */
    long[] memory();

    CUmodule loadModule(byte[] image);

    void unloadModule(CUmodule module);

    CUfunction function(CUmodule module, String name);

    void setMaxDynamicShared(CUfunction function, int bytes);

    void launch(CUfunction function, int grid, int block, int sharedBytes, Pointer params);

    /** A launch on {@code stream} (null: the default stream); drivers without streams take only the default one. */
    default void launch(CUfunction function, int grid, int block, int sharedBytes, Pointer params, CUstream stream) {
        if (stream != null) {
            throw new UnsupportedOperationException("this driver launches on the default stream only");
        }
        launch(function, grid, block, sharedBytes, params);
    }

    void synchronize();

    /** The 128 bytes of the tiled tensor map (cuTensorMapEncodeTiled) of {@code map} over the memory at {@code base}. */
    byte[] encodeTileMap(CUdeviceptr base, TileMap map);

    CUdeviceptr alloc(long bytes);

    void free(CUdeviceptr ptr);

    /** Copies {@code bytes} from host {@code src} to {@code dst} at byte offset {@code dstOffset} (64-bit throughout). */
    void copyToDevice(CUdeviceptr dst, long dstOffset, Pointer src, long bytes);

    /** Copies {@code bytes} from {@code src} at byte offset {@code srcOffset} to host {@code dst}. */
    void copyToHost(Pointer dst, CUdeviceptr src, long srcOffset, long bytes);

    void fill16(CUdeviceptr ptr, short value, long count);

    void fill32(CUdeviceptr ptr, int value, long count);

    CUevent eventCreate();

    void eventRecord(CUevent event);

    /** Waits for the event; milliseconds between {@code start} and it. */
    float eventElapsedMs(CUevent start, CUevent end);

    void eventDestroy(CUevent event);
}
