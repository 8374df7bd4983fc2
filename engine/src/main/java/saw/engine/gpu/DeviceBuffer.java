package saw.engine.gpu;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import saw.engine.attention.DType;
import saw.engine.attention.HalfFloats;

/** Device memory owned by one run; freed on close (never throwing, so that it does not hide a run's failure). */
final class DeviceBuffer implements AutoCloseable {
    /** NaN in bf16 and fp16: outputs are filled with it so that an element a kernel never wrote shows. */
    static final short NAN16 = (short) 0xffff;
    /** An fp32 quiet NaN, for the same purpose. */
    static final int NAN32 = 0x7fc00000;
    final CUdeviceptr ptr;
    final long bytes;
    private final CudaDevice cuda;
    private final String what;
    private final int generation;
    private boolean freed;
    /**
     * This buffer's tensor maps encoded so far: one depends only on the address and the geometry, and encoding it
     * between a timed run's start event and its launch would be timed.
     */
    private final Map<TileMap, byte[]> tileMaps = new HashMap<>();

    DeviceBuffer(CudaDevice cuda, String what, long bytes) {
        this.cuda = cuda;
        this.what = what;
        this.bytes = Math.max(4, bytes);
        this.generation = cuda.generation();
        CUdeviceptr p;
        try {
            p = cuda.driver.alloc(this.bytes);
        } catch (CudaException e) {
            GpuException failed = cuda.failure("allocating " + bytes + " bytes of GPU memory for " + what, e);
            throw "CUDA_ERROR_OUT_OF_MEMORY".equals(e.getMessage()) ? new GpuException(failed.getMessage() + " (" + freeNow() + ")", e) : failed;
        }
        this.ptr = p;
    }

    private String freeNow() {
        try {
            long[] m = cuda.driver.memory();
            return m[0] + " of " + m[1] + " bytes free";
        } catch (CudaException e) {
            return "free memory unknown";
        }
    }

    /** The context generation this buffer was allocated in (CudaDevice counts resets). */
    int generation() {
        return generation;
    }

    /** The tensor map of {@code map} over this buffer, encoded by {@code encode} the first time it is asked for. */
    byte[] tileMap(TileMap map, Supplier<byte[]> encode) {
        byte[] bytes = tileMaps.get(map);
        if (bytes == null) {
            bytes = encode.get();
            tileMaps.put(map, bytes);
        }
        return bytes;
    }

    /** The most bytes one driver copy moves: larger transfers go in pieces of this size. */
    static final long COPY_CHUNK = 64L << 20;

    /** Copies {@code n} bytes from host {@code src} to the start of this buffer, in chunks. */
    void copyIn(Pointer src, long n) {
        range("copying " + what + " to the GPU", 0, n);
        for (long done = 0; done < n; done += COPY_CHUNK) {
            long from = done;
            long len = Math.min(COPY_CHUNK, n - done);
            cuda.check("copying " + what + " to the GPU", () -> cuda.driver.copyToDevice(ptr, from, src.withByteOffset(from), len));
        }
    }

    /** All of the first {@code n} 16-bit elements. */
    short[] readShorts(String name, int n) {
        return readShorts(name, 0, n);
    }

    /** {@code n} 16-bit elements from element {@code first} on (a 64-bit index: buffers pass 2^31 elements). */
    short[] readShorts(String name, long first, int n) {
        short[] out = new short[n];
        read(name, Pointer.to(out), 2 * first, 2L * n);
        return out;
    }

    /** All of the first {@code n} 16-bit elements, decoded from {@code type}. */
    float[] readHalves(String name, DType type, int n) {
        return decode(type, readShorts(name, n));
    }

    /** {@code n} 16-bit elements from element {@code first} on, decoded from {@code type}. */
    float[] readHalves(String name, DType type, long first, int n) {
        return decode(type, readShorts(name, first, n));
    }

    private static float[] decode(DType type, short[] bits) {
        float[] out = new float[bits.length];
        for (int i = 0; i < bits.length; i++) {
            out[i] = HalfFloats.decode(type, bits[i]);
        }
        return out;
    }

    float[] readFloats(String name, int n) {
        return readFloats(name, 0, n);
    }

    /** {@code n} 32-bit floats from element {@code first} on. */
    float[] readFloats(String name, long first, int n) {
        float[] out = new float[n];
        read(name, Pointer.to(out), 4 * first, 4L * n);
        return out;
    }

    private void read(String name, Pointer host, long fromByte, long n) {
        range("copying " + name + " from the GPU", fromByte, n);
        for (long done = 0; done < n; done += COPY_CHUNK) {
            long at = done;
            long len = Math.min(COPY_CHUNK, n - done);
            cuda.check("copying " + name + " from the GPU", () -> cuda.driver.copyToHost(host.withByteOffset(at), ptr, fromByte + at, len));
        }
    }

    private void range(String work, long fromByte, long n) {
        if (fromByte < 0 || n < 0 || fromByte > bytes - n) {
            throw new IllegalArgumentException(work + ": bytes " + fromByte + ".." + (fromByte + n) + " are outside the "
                    + bytes + "-byte buffer");
        }
    }

    /** Fills with a 16-bit pattern (0xffff is NaN in bf16 and fp16). */
    void fill16(String name, short pattern) {
        cuda.check("filling " + name, () -> cuda.driver.fill16(ptr, pattern, bytes / 2));
    }

    void fill32(String name, int pattern) {
        cuda.check("filling " + name, () -> cuda.driver.fill32(ptr, pattern, bytes / 4));
    }

    /** Frees the memory, unless a context reset since the allocation freed it already. */
    @Override
    public void close() {
        if (!freed) {
            freed = true;
            if (generation == cuda.generation()) {
                cuda.quietly(() -> cuda.driver.free(ptr));
            }
        }
    }
}
