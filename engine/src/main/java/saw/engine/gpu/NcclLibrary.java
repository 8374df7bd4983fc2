package saw.engine.gpu;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/**
 * The part of NCCL's C API (nccl.h, NCCL 2.x) that saw calls, through JNA. Every call returns an {@code ncclResult_t}
 * (0 is success). {@code ncclComm_t} and {@code cudaStream_t} are opaque pointers; buffers are CUDA device addresses.
 * Counts are {@code size_t} (64-bit on the Linux x86-64 machines saw's GPU backend runs on).
 */
interface NcclLibrary extends Library {
    /** ncclUint8: saw sends every buffer as bytes, so that bf16 and fp32 need no type of their own. */
    int UINT8 = 1;

    int ncclGetVersion(IntByReference version);

    /** One communicator per listed CUDA device, all in this process; {@code comms} receives {@code ndev} handles. */
    int ncclCommInitAll(Pointer comms, int ndev, int[] devlist);

    int ncclGroupStart();

    int ncclGroupEnd();

    int ncclSend(Pointer sendbuff, long count, int datatype, int peer, Pointer comm, Pointer stream);

    int ncclRecv(Pointer recvbuff, long count, int datatype, int peer, Pointer comm, Pointer stream);

    int ncclCommDestroy(Pointer comm);

    String ncclGetErrorString(int result);
}
