package saw.engine.gpu;

/** A CUDA failure, with a message that names what was running (kernel, launch shape) and the CUDA error. */
public final class GpuException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public GpuException(String message) {
        super(message);
    }

    public GpuException(String message, Throwable cause) {
        super(message, cause);
    }
}
