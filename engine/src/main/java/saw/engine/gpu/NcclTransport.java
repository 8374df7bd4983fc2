package saw.engine.gpu;

import com.sun.jna.Pointer;
import java.util.List;

/** Ring transfers as NCCL send/recv pairs, one NCCL group per exchange; rank i is ring device i. */
final class NcclTransport implements RingTransport {
    private final Nccl nccl;
    private final List<RingDevice> devices;
    private final Pointer[] comms;

    NcclTransport(Nccl nccl, List<RingDevice> devices) {
        this.nccl = nccl;
        this.devices = devices;
        int[] ordinals = devices.stream().mapToInt(d -> d.ordinal).toArray();
        if (java.util.Arrays.stream(ordinals).distinct().count() != ordinals.length) {
            throw new GpuException("NCCL needs one GPU per ring device; devices " + java.util.Arrays.toString(ordinals)
                    + " share GPUs (run them as virtual devices with device-to-device copies instead)");
        }
        this.comms = nccl.initAll(ordinals);
    }

    @Override
    public String describe() {
        return nccl.describe();
    }

    @Override
    public String name() {
        return "nccl";
    }

    @Override
    public void group(List<Move> moves) {
        nccl.groupStart();
        try {
            for (Move m : moves) {
                RingDevice from = devices.get(m.from());
                RingDevice to = devices.get(m.to());
                nccl.send(RingDevice.address(m.src()), m.bytes(), m.to(), comms[m.from()], RingDevice.address(from.comm));
                nccl.recv(RingDevice.address(m.dst()), m.bytes(), m.from(), comms[m.to()], RingDevice.address(to.comm));
            }
        } finally {
            nccl.groupEnd();
        }
    }

    @Override
    public void close() {
        for (Pointer c : comms) {
            nccl.destroyQuietly(c);
        }
    }
}
