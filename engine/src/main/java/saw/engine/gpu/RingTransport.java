package saw.engine.gpu;

import java.util.List;
import jcuda.driver.CUdeviceptr;

/**
 * Moves buffers between ring devices on their communication streams. A group of moves behaves as NCCL's grouped
 * send/recv: each move is ordered after what was issued before on both its devices' communication streams, and
 * what is issued after the group on either stream comes after the move.
 */
interface RingTransport extends AutoCloseable {
    /** One buffer from device {@code from} to device {@code to}. */
    record Move(int from, int to, CUdeviceptr src, CUdeviceptr dst, long bytes) {}

    /** "NCCL 2.27.3 (...)" or "CUDA peer-to-peer copies". */
    String describe();

    /** "nccl", "p2p" or "copy" (virtual devices on one GPU), for results files. */
    String name();

    void group(List<Move> moves);

    @Override
    void close();
}
