package saw.engine.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * Device buffers made one after another and freed together, so that a failed allocation frees the ones before it;
 * the sets of buffers a run keeps (its tables, its gradients) are such lists with names for their buffers.
 */
class BufferList implements AutoCloseable {
    private final List<DeviceBuffer> made = new ArrayList<>();

    /** Keeps {@code b} to be freed on close; returns it. */
    DeviceBuffer add(DeviceBuffer b) {
        made.add(b);
        return b;
    }

    /** Bytes of the buffers kept. */
    long bytes() {
        return made.stream().mapToLong(b -> b.bytes).sum();
    }

    @Override
    public void close() {
        made.forEach(DeviceBuffer::close);
        made.clear();
    }
}
