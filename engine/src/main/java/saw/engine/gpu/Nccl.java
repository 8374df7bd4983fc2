package saw.engine.gpu;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/**
 * NCCL loaded from the library {@link NcclLocator} finds, with NVLink multicast (NVLS) switched off for the whole
 * process before any communicator exists: saw never uses multicast objects, and on shared GPU machines NVLS can be
 * unavailable or reserved (docs/gpu.md).
 */
final class Nccl {
    /** The environment variable NCCL reads at communicator creation; saw forces it to 0. */
    static final String NVLS = "NCCL_NVLS_ENABLE";

    private final NcclLibrary lib;
    private final NcclLocator.Found found;

    private Nccl(NcclLibrary lib, NcclLocator.Found found) {
        this.lib = lib;
        this.found = found;
    }

    /**
     * Finds and loads NCCL.
     *
     * @throws GpuException with one sentence when it is missing or cannot be loaded
     */
    static Nccl load(NcclLocator locator) {
        NcclLocator.Found found = locator.find();
        keepMulticastOff();
        try {
            return new Nccl(Native.load(found.library(), NcclLibrary.class), found);
        } catch (UnsatisfiedLinkError e) {
            throw new GpuException("NCCL at " + found.library() + " (" + found.how() + ") could not be loaded: "
                    + firstLine(e.getMessage()));
        }
    }

    /** The C library's setenv, so that NCCL (reading getenv in this process) sees the setting. */
    private interface LibC extends Library {
        int setenv(String name, String value, int overwrite);
    }

    static void keepMulticastOff() {
        LibC c = Native.load("c", LibC.class);
        if (c.setenv(NVLS, "0", 1) != 0) {
            throw new GpuException("could not set " + NVLS + "=0 for this process; saw does not run NCCL with NVLink "
                    + "multicast on");
        }
    }

    /** "NCCL 2.27.3 (libnccl.so.2 on the loader path)". */
    String describe() {
        IntByReference v = new IntByReference();
        check("asking NCCL its version", lib.ncclGetVersion(v));
        return "NCCL " + version(v.getValue()) + " (" + found.library() + ", " + found.how() + ", " + NVLS + "=0)";
    }

    /** NCCL's version code as text: 22703 is 2.27.3 (codes before 2.9 were major*1000 + minor*100 + patch). */
    static String version(int code) {
        if (code >= 10000) {
            return code / 10000 + "." + (code % 10000) / 100 + "." + code % 100;
        }
        return code / 1000 + "." + (code % 1000) / 100 + "." + code % 100;
    }

    /** One communicator per CUDA device ordinal, rank i on {@code ordinals[i]}. */
    Pointer[] initAll(int[] ordinals) {
        Memory comms = new Memory((long) Native.POINTER_SIZE * ordinals.length);
        check("creating NCCL communicators for GPUs " + java.util.Arrays.toString(ordinals),
                lib.ncclCommInitAll(comms, ordinals.length, ordinals.clone()));
        return comms.getPointerArray(0, ordinals.length);
    }

    void groupStart() {
        check("starting an NCCL group", lib.ncclGroupStart());
    }

    void groupEnd() {
        check("ending an NCCL group (its sends and receives)", lib.ncclGroupEnd());
    }

    void send(long deviceAddress, long bytes, int peer, Pointer comm, long stream) {
        check("an NCCL send of " + bytes + " bytes to rank " + peer,
                lib.ncclSend(new Pointer(deviceAddress), bytes, NcclLibrary.UINT8, peer, comm, new Pointer(stream)));
    }

    void recv(long deviceAddress, long bytes, int peer, Pointer comm, long stream) {
        check("an NCCL receive of " + bytes + " bytes from rank " + peer,
                lib.ncclRecv(new Pointer(deviceAddress), bytes, NcclLibrary.UINT8, peer, comm, new Pointer(stream)));
    }

    /** Destroys a communicator, never throwing (clean-up must not hide the failure that led to it). */
    void destroyQuietly(Pointer comm) {
        try {
            lib.ncclCommDestroy(comm);
        } catch (RuntimeException | Error e) {
            // nothing more to do: the process is about to lose the communicator anyway
        }
    }

    private void check(String what, int result) {
        if (result != 0) {
            throw new GpuException(failure(what, result, lib.ncclGetErrorString(result)));
        }
    }

    /** "WHAT failed: NCCL error N (NCCL's sentence)". */
    static String failure(String what, int result, String nccl) {
        return what + " failed: NCCL error " + result + " (" + (nccl == null ? "no description" : nccl) + ")";
    }

    private static String firstLine(String s) {
        return s == null ? "no reason given" : s.lines().findFirst().orElse(s);
    }
}
