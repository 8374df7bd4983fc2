package saw.engine.gpu;

import java.util.function.Supplier;
import jcuda.CudaException;

/** Turns JCuda's exceptions into {@link GpuException}s that say what was running. */
final class CudaErrors {
    private CudaErrors() {}

    /** Runs a driver call; on failure throws a GpuException "WHAT failed: CUDA_ERROR_...". */
    static void check(String what, Runnable call) {
        check(what, () -> {
            call.run();
            return null;
        });
    }

    static <T> T check(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (CudaException e) {
            throw failed(what, e);
        }
    }

    /** "WHAT failed: CUDA_ERROR_...". */
    static GpuException failed(String what, CudaException e) {
        return new GpuException(what + " failed: " + e.getMessage(), e);
    }
}
