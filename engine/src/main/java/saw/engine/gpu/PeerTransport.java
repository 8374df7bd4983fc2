package saw.engine.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jcuda.driver.CUdevice;
import jcuda.driver.CUevent;
import jcuda.driver.JCudaDriver;

/**
 * Ring transfers as CUDA copies: between GPUs cuMemcpyPeerAsync (direct over NVLink or PCIe where the GPUs can
 * access each other's memory, which is switched on here; staged by the driver otherwise), between virtual devices
 * of one GPU cuMemcpyDtoDAsync. Each copy runs on the receiver's communication stream after the sender's
 * communication stream has reached the group, and the sender's stream then waits for the copy, as an NCCL send
 * would.
 */
final class PeerTransport implements RingTransport {
    private final List<RingDevice> devices;
    private final boolean virtual;
    private final String access;
    /** Per device: marks its communication stream's position (sender side) and the end of its copies (receiver side). */
    private final CUevent[] ready;
    private final CUevent[] copied;

    PeerTransport(List<RingDevice> devices) {
        this.devices = devices;
        this.virtual = devices.stream().mapToInt(d -> d.ordinal).distinct().count() == 1 && devices.size() > 1;
        this.access = virtual ? "" : enablePeerAccess(devices);
        this.ready = new CUevent[devices.size()];
        this.copied = new CUevent[devices.size()];
        for (int i = 0; i < devices.size(); i++) {
            RingDevice d = devices.get(i);
            d.cuda.makeCurrent();
            ready[i] = d.syncEvent();
            copied[i] = d.syncEvent();
        }
    }

    /** Switches on access between every pair of distinct GPUs that supports it; says which pairs could not. */
    private static String enablePeerAccess(List<RingDevice> devices) {
        List<String> staged = new ArrayList<>();
        Map<Integer, RingDevice> byGpu = new HashMap<>();
        devices.forEach(d -> byGpu.putIfAbsent(d.ordinal, d));
        for (RingDevice a : byGpu.values()) {
            for (RingDevice b : byGpu.values()) {
                if (a.ordinal == b.ordinal) {
                    continue;
                }
                int[] can = new int[1];
                CUdevice da = new CUdevice();
                CUdevice db = new CUdevice();
                a.cuda.check("asking whether GPU " + a.ordinal + " can access GPU " + b.ordinal, () -> {
                    JCudaDriver.cuDeviceGet(da, a.ordinal);
                    JCudaDriver.cuDeviceGet(db, b.ordinal);
                    JCudaDriver.cuDeviceCanAccessPeer(can, da, db);
                });
                if (can[0] == 0) {
                    staged.add(a.ordinal + "->" + b.ordinal);
                    continue;
                }
                a.cuda.makeCurrent();
                try {
                    JCudaDriver.cuCtxEnablePeerAccess(b.context(), 0);
                } catch (jcuda.CudaException e) {
                    if (!"CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED".equals(e.getMessage())) {
                        throw CudaErrors.failed("enabling access from GPU " + a.ordinal + " to GPU " + b.ordinal, e);
                    }
                }
            }
        }
        return staged.isEmpty() ? "direct peer access" : "staged by the driver for " + String.join(", ", staged);
    }

    @Override
    public String describe() {
        return virtual ? "device-to-device copies (" + devices.size() + " virtual devices on GPU " + devices.get(0).ordinal + ")"
                : "CUDA peer-to-peer copies (" + access + ")";
    }

    @Override
    public String name() {
        return virtual ? "copy" : "p2p";
    }

    @Override
    public void group(List<Move> moves) {
        boolean[] sends = new boolean[devices.size()];
        boolean[] receives = new boolean[devices.size()];
        for (Move m : moves) {
            sends[m.from()] = true;
            receives[m.to()] = true;
        }
        for (int i = 0; i < devices.size(); i++) {
            if (sends[i]) {
                RingDevice d = devices.get(i);
                d.cuda.makeCurrent();
                d.record(ready[i], d.comm);
            }
        }
        List<List<Integer>> sendersOf = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            sendersOf.add(new ArrayList<>());
        }
        for (Move m : moves) {
            RingDevice from = devices.get(m.from());
            RingDevice to = devices.get(m.to());
            to.cuda.makeCurrent();
            if (!sendersOf.get(m.to()).contains(m.from())) {
                to.wait(to.comm, ready[m.from()]);
                sendersOf.get(m.to()).add(m.from());
            }
            if (from.ordinal == to.ordinal) {
                to.copy(m.dst(), m.src(), m.bytes(), to.comm);
            } else {
                to.cuda.check("copying " + m.bytes() + " bytes from GPU " + from.ordinal + " to GPU " + to.ordinal,
                        () -> JCudaDriver.cuMemcpyPeerAsync(m.dst(), to.context(), m.src(), from.context(), m.bytes(), to.comm));
            }
        }
        for (int i = 0; i < devices.size(); i++) {
            if (receives[i]) {
                RingDevice d = devices.get(i);
                d.cuda.makeCurrent();
                d.record(copied[i], d.comm);
            }
        }
        for (Move m : moves) {
            RingDevice from = devices.get(m.from());
            from.cuda.makeCurrent();
            from.wait(from.comm, copied[m.to()]);
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < devices.size(); i++) {
            devices.get(i).cuda.makeCurrent();
            devices.get(i).destroy(ready[i]);
            devices.get(i).destroy(copied[i]);
        }
    }
}
