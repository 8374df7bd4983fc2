package saw.engine.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jcuda.driver.CUevent;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.HalfFloats;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.TileLists;
import saw.engine.gpu.RingProgram.Compute;
import saw.engine.gpu.RingProgram.Exchange;
import saw.engine.gpu.RingProgram.Payload;
import saw.engine.gpu.RingProgram.Transfer;

/**
 * Ring attention on several GPUs in one process: one CUDA context per GPU with a compute and a communication stream
 * per ring device, K/V shards (and in the backward pass fp32 dK/dV accumulators) passed around the ring by NCCL
 * send/recv groups, or by CUDA peer copies when NCCL is unavailable. With one GPU, the ring's devices run as
 * "virtual" devices on it (own streams, device-to-device copies), which checks the algorithm but measures no
 * interconnect. The order of work is {@link RingProgram}'s: the next step's shard travels while this step computes,
 * empty steps are skipped by both sides.
 *
 * <p>Each step's kernel writes its partial O and LSE to a buffer of its own; after the ring a device combines them by
 * log-sum-exp in one pass (ring_combine_*). The backward pass starts from the combined O and LSE, accumulates dQ
 * across steps in the kernel's fp32 accumulator and dK/dV in the travelling fp32 accumulators.
 */
public final class RingGpus implements AutoCloseable {
    /** How K/V moves between GPUs. */
    public enum Transport {
        /** NCCL when it can be loaded, else CUDA peer copies (virtual devices always copy). */
        AUTO,
        NCCL,
        P2P;

        public static Transport parse(String s) {
            for (Transport t : values()) {
                if (t.name().equalsIgnoreCase(s)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("transport '" + s + "' is not one of auto, nccl, p2p");
        }
    }

    /** How long a timed run holds each compute stream before its clock starts: longer than issuing a ring run takes. */
    static final long HOLD_NS = 2_000_000L;

    private final List<CudaDevice> gpus;
    private final List<RingDevice> devices;
    private final RingTransport transport;
    private final String description;
    private final String fallback;
    private final int major;
    private final ForwardKernel forwardKernel = ForwardKernel.configured();
    private final BackwardKernel backwardKernel = BackwardKernel.configured();

    private RingGpus(List<CudaDevice> gpus, List<RingDevice> devices, RingTransport transport, String description,
            String fallback, int major) {
        this.gpus = gpus;
        this.devices = devices;
        this.transport = transport;
        this.description = description;
        this.fallback = fallback;
        this.major = major;
    }

    /**
     * Opens {@code gpus} GPUs for a ring of {@code devices} devices: one GPU per device, or every device on GPU 0.
     *
     * @throws IllegalArgumentException when the counts do not fit those two cases
     * @throws GpuException with a sentence when the GPUs or the transport cannot be used
     */
    public static RingGpus open(int devices, int gpus, Transport transport) {
        if (devices < 1) {
            throw new IllegalArgumentException("a ring needs at least one device, got " + devices);
        }
        if (gpus != 1 && gpus != devices) {
            throw new IllegalArgumentException("--gpus " + gpus + " does not fit a ring of " + devices + " devices: use one GPU "
                    + "per device (--gpus " + devices + ") or all devices on one GPU (--gpus 1)");
        }
        boolean virtual = gpus == 1 && devices > 1;
        if (virtual && transport == Transport.NCCL) {
            throw new IllegalArgumentException("--transport nccl needs one GPU per ring device; " + devices + " virtual devices "
                    + "on one GPU move their shards with device-to-device copies (--transport auto or p2p)");
        }
        GpuStatus status = GpuBackend.detect();
        if (!status.usable()) {
            throw new GpuException(status.message());
        }
        if (status.devices().size() < gpus) {
            throw new GpuException("a ring on " + gpus + " GPUs needs " + gpus + " GPUs; this machine has "
                    + status.devices().size() + " (" + String.join("; ", status.devices()) + "); use --gpus 1 to run the ring's "
                    + devices + " devices on one GPU");
        }
        List<CudaDevice> opened = new ArrayList<>();
        List<RingDevice> ring = new ArrayList<>();
        RingTransport moves = null;
        try {
            int major = Integer.MAX_VALUE;
            List<String> names = new ArrayList<>();
            JCudaProbe probe = new JCudaProbe();
            for (int g = 0; g < gpus; g++) {
                opened.add(new CudaDevice(g));
                DeviceProbe.Device d = probe.device(g);
                major = Math.min(major, d.major());
                names.add(g + ": " + d.name());
            }
            for (int r = 0; r < devices; r++) {
                CudaDevice cuda = opened.get(virtual ? 0 : r);
                cuda.syncEachLaunch(false);
                ring.add(new RingDevice(r, virtual ? 0 : r, cuda));
            }
            String fallback = "";
            if (devices == 1 || virtual || transport == Transport.P2P) {
                moves = new PeerTransport(ring);
            } else if (transport == Transport.NCCL) {
                moves = new NcclTransport(Nccl.load(NcclLocator.system()), ring);
            } else {
                try {
                    moves = new NcclTransport(Nccl.load(NcclLocator.system()), ring);
                } catch (GpuException e) {
                    fallback = e.getMessage();
                    moves = new PeerTransport(ring);
                }
            }
            String where = virtual ? devices + " virtual devices on GPU " + names.get(0)
                    : devices + (devices == 1 ? " device on GPU " : " devices on GPUs ") + String.join(", ", names);
            return new RingGpus(opened, ring, moves, where, fallback, major);
        } catch (RuntimeException e) {
            if (moves != null) {
                moves.close();
            }
            ring.forEach(RingDevice::close);
            opened.forEach(CudaDevice::close);
            throw e;
        }
    }

    /**
     * Where NCCL is and its version ("NCCL 2.27.3 (libnccl.so.2, on the loader path, NCCL_NVLS_ENABLE=0)"), or the
     * sentence saying it was not found or could not be loaded; never throws.
     */
    public static String ncclStatus() {
        try {
            return Nccl.load(NcclLocator.system()).describe();
        } catch (GpuException e) {
            return e.getMessage();
        } catch (RuntimeException | LinkageError e) {
            return "NCCL could not be queried: " + e.getMessage();
        }
    }

    /** "2 devices on GPUs 0: NVIDIA H200, 1: NVIDIA H200". */
    public String description() {
        return description;
    }

    /** How shards move, in a sentence: NCCL's version and where it was found, or which copies. */
    public String transport() {
        String t = devices.size() == 1 ? "none (one device)" : transport.describe();
        return fallback.isEmpty() ? t : t + "; NCCL was not used: " + fallback;
    }

    /** "nccl", "p2p", "copy" or "none". */
    public String transportName() {
        return devices.size() == 1 ? "none" : transport.name();
    }

    public boolean virtual() {
        return gpus.size() == 1 && devices.size() > 1;
    }

    public int devices() {
        return devices.size();
    }

    /**
     * Runs the ring on given inputs (each device's own queries, shard and dO, shaped by {@link RingShards#local})
     * and brings back each device's outputs in the same local order.
     */
    public List<AttentionOutputs> run(RingShards shards, List<AttentionInputs> inputs, boolean backward) {
        if (inputs.size() != shards.devices()) {
            throw new IllegalArgumentException(inputs.size() + " input sets for a ring of " + shards.devices() + " devices");
        }
        try (Prepared p = new Prepared(shards, backward)) {
            for (int d = 0; d < shards.devices(); d++) {
                AttentionInputs in = inputs.get(d);
                if (!in.problem().equals(shards.local(d))) {
                    throw new IllegalArgumentException("device " + d + "'s inputs are for " + in.problem() + ", not "
                            + shards.local(d));
                }
                if (in.hasSinks()) {
                    throw new IllegalArgumentException("the multi-GPU ring does not take learned sink logits yet; run it "
                            + "without sinks");
                }
                if (backward && !in.hasGradient()) {
                    throw new IllegalArgumentException("the backward pass needs inputs with dO");
                }
                p.upload(d, in);
            }
            p.enqueue(backward, false);
            p.synchronize();
            List<AttentionOutputs> out = new ArrayList<>();
            for (int d = 0; d < shards.devices(); d++) {
                out.add(p.read(d, backward));
            }
            return out;
        }
    }

    /**
     * One timed run: the slowest device's time (in all, forward ring, backward ring), each device's time, each
     * device's busy time in its steps (forward and backward kernels; CUDA events around them) and the time its
     * communication stream spent in exchanges (from the moment it could start one, the rendezvous with the peer
     * included, to its end): communication that overlaps compute shows in the last but not in the wall time.
     */
    public record Rep(double wallMs, double fwdWallMs, double bwdWallMs, double[] deviceMs, double[] deviceKernelMs,
                      double[] deviceCommMs) {
        public Rep {
            deviceMs = deviceMs.clone();
            deviceKernelMs = deviceKernelMs.clone();
            deviceCommMs = deviceCommMs.clone();
        }

        @Override
        public double[] deviceCommMs() {
            return deviceCommMs.clone();
        }

        @Override
        public double[] deviceMs() {
            return deviceMs.clone();
        }

        @Override
        public double[] deviceKernelMs() {
            return deviceKernelMs.clone();
        }
    }

    /**
     * Times the ring on inputs drawn on each device from {@code seed}: {@code warmup} untimed runs, then {@code reps}
     * timed ones. Each run is the forward ring, then with {@code backward} the backward ring, all devices started
     * together after a synchronisation.
     */
    public List<Rep> time(RingShards shards, boolean backward, long seed, int warmup, int reps) {
        try (Prepared p = new Prepared(shards, backward)) {
            for (int d = 0; d < shards.devices(); d++) {
                p.fill(d, seed * 1_000_003L + d);
            }
            p.synchronize();
            List<Rep> out = new ArrayList<>();
            for (int r = 0; r < warmup + reps; r++) {
                p.enqueue(backward, true);
                p.synchronize();
                if (r >= warmup) {
                    out.add(p.rep(backward));
                }
            }
            return out;
        }
    }

    /** Which kernels the ring's steps launch, "fwd_bf16_d128_q128_kv128" (and " / bwd_..." with the backward). */
    public String kernels(RingShards shards, boolean backward) {
        KernelTiles tiles = new KernelTiles(shards.layout().blockQ(), shards.layout().blockKv());
        AttentionProblem p = shards.local(0);
        String f = KernelCatalog.forwardFor(p, tiles, 1, forwardKernel, major,
                KernelCatalog.rowSpans(shards.lists(0, 0))).kernel();
        return backward ? f + " / " + KernelCatalog.backwardFor(p, tiles, 1, backwardKernel, major).kernel() : f;
    }

    @Override
    public void close() {
        transport.close();
        devices.forEach(RingDevice::close);
        gpus.forEach(CudaDevice::close);
    }

    /** A step's tables and launch shapes on its device. */
    private static final class StepPlan {
        final AttentionProblem p;
        final TileLists lists;
        final GpuBackend.Tables tables;
        final LaunchShape fwd;
        final LaunchShape bwd;

        StepPlan(AttentionProblem p, TileLists lists, GpuBackend.Tables tables, LaunchShape fwd, LaunchShape bwd) {
            this.p = p;
            this.lists = lists;
            this.tables = tables;
            this.fwd = fwd;
            this.bwd = bwd;
        }
    }

    /**
     * One device's buffers. Slots: K/V [2] of the largest shard; accumulators [3] (two travelling, home). {@code part}
     * maps a step to its partial-output buffer (-1 for a skipped step).
     */
    private static final class Buffers {
        DeviceBuffer q;
        DeviceBuffer k;
        DeviceBuffer v;
        DeviceBuffer dO;
        DeviceBuffer o;
        DeviceBuffer lse;
        /** Per computed step (in step order), its partial O and LSE; and device tables of their addresses. */
        final List<DeviceBuffer> oPart = new ArrayList<>();
        final List<DeviceBuffer> lsePart = new ArrayList<>();
        DeviceBuffer oParts;
        DeviceBuffer lseParts;
        final DeviceBuffer[] kSlot = new DeviceBuffer[2];
        final DeviceBuffer[] vSlot = new DeviceBuffer[2];
        DeviceBuffer dsum;
        DeviceBuffer dqAcc;
        DeviceBuffer dq;
        DeviceBuffer dkStep;
        DeviceBuffer dvStep;
        final DeviceBuffer[] dkAcc = new DeviceBuffer[3];
        final DeviceBuffer[] dvAcc = new DeviceBuffer[3];
        DeviceBuffer dk;
        DeviceBuffer dv;
        int[] part;
    }

    /** Everything a ring run needs on the devices, made once and run as often as asked. */
    private final class Prepared implements RingMachine, AutoCloseable {
        private final RingShards shards;
        private final int n;
        private final RingProgram forward;
        private final RingProgram backwardProgram;
        private final StepPlan[][] plans;
        private final Buffers[] buf;
        private final List<DeviceBuffer> all = new ArrayList<>();
        private final Map<Integer, CUevent[]> arrivals = new HashMap<>();
        private final Map<Integer, CUevent[]> departures = new HashMap<>();
        private final CUevent[] start;
        private final CUevent[] mid;
        private final CUevent[] end;
        private final CUevent[] commDone;
        private final CUevent[][] stepStart;
        private final CUevent[][] stepEnd;
        private final CUevent[][] bwdStepStart;
        private final CUevent[][] bwdStepEnd;
        private final List<GpuBackend.Tables> tables = new ArrayList<>();
        private boolean inBackward;

        Prepared(RingShards shards, boolean backward) {
            this.shards = shards;
            this.n = shards.devices();
            if (n != devices.size()) {
                throw new IllegalArgumentException("the plan has " + n + " devices; this ring was opened with " + devices.size());
            }
            int dh = shards.global().headDim();
            // (the step launches pass no tensor maps: the head dim 256 Hopper kernels, which take them, never run here)
            if (dh != 64 && dh != 128) {
                throw new IllegalArgumentException("the multi-GPU ring runs head dims 64 and 128 (forward and backward); got "
                        + dh);
            }
            this.forward = RingProgram.of(shards.work(), false);
            this.backwardProgram = backward ? RingProgram.of(shards.work(), true) : null;
            this.plans = new StepPlan[n][n];
            this.buf = new Buffers[n];
            this.start = new CUevent[n];
            this.mid = new CUevent[n];
            this.end = new CUevent[n];
            this.commDone = new CUevent[n];
            this.stepStart = new CUevent[n][n];
            this.stepEnd = new CUevent[n][n];
            this.bwdStepStart = new CUevent[n][n];
            this.bwdStepEnd = new CUevent[n][n];
            try {
                checkMemory(backward);
                for (int d = 0; d < n; d++) {
                    RingDevice dev = devices.get(d);
                    dev.cuda.makeCurrent();
                    buf[d] = allocate(d, backward);
                    for (int s = 0; s < n; s++) {
                        if (!shards.works(d, s)) {
                            continue;
                        }
                        AttentionProblem p = shards.problem(d, Math.floorMod(d - s, n));
                        KernelTiles tiles = new KernelTiles(shards.layout().blockQ(), shards.layout().blockKv());
                        String why = KernelCatalog.unsupported(p, tiles);
                        if (why != null) {
                            throw new IllegalArgumentException(why);
                        }
                        TileLists lists = shards.lists(d, s);
                        LaunchShape fwd = KernelCatalog.forwardFor(p, tiles, lists.numQBlocks(), forwardKernel, major,
                                KernelCatalog.rowSpans(lists));
                        GpuBackend.Tables t = new GpuBackend.Tables(dev.cuda, lists, p.headDim(),
                                KernelCatalog.readsSpans(fwd));
                        tables.add(t);
                        plans[d][s] = new StepPlan(p, lists, t, fwd,
                                KernelCatalog.backwardFor(p, tiles, lists.numKvBlocks(), backwardKernel, major));
                        stepStart[d][s] = dev.timingEvent();
                        stepEnd[d][s] = dev.timingEvent();
                        if (backward) {
                            bwdStepStart[d][s] = dev.timingEvent();
                            bwdStepEnd[d][s] = dev.timingEvent();
                        }
                    }
                    start[d] = dev.timingEvent();
                    mid[d] = dev.timingEvent();
                    end[d] = dev.timingEvent();
                    commDone[d] = dev.syncEvent();
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        private long qElems(int d) {
            return AttentionInputs.qSize(shards.local(d));
        }

        private long kvElems(int d) {
            return AttentionInputs.kvSize(shards.local(d));
        }

        private long rows(int d) {
            AttentionProblem p = shards.local(d);
            return (long) p.batch() * p.heads() * p.seqQ();
        }

        private long maxKvElems() {
            long m = 0;
            for (int d = 0; d < n; d++) {
                m = Math.max(m, kvElems(d));
            }
            return m;
        }

        private long bytesNeeded(int d, boolean backward) {
            long qn = qElems(d);
            long kvn = kvElems(d);
            long slot = maxKvElems();
            long rows = rows(d);
            long parts = 0;
            for (int s = 0; s < n; s++) {
                parts += shards.works(d, s) ? 1 : 0;
            }
            long fwd = 2 * (qn + 2 * kvn) + 2 * qn + 4 * rows + parts * (2 * qn + 4 * rows) + 2 * 2 * 2 * slot;
            long bwd = backward ? 2 * qn + 4 * rows + 4 * qn + 2 * qn + 2 * 2 * slot + 3 * 2 * 4 * slot + 2 * 2 * kvn : 0;
            return fwd + bwd;
        }

        private void checkMemory(boolean backward) {
            Map<Integer, Long> perGpu = new LinkedHashMap<>();
            for (int d = 0; d < n; d++) {
                perGpu.merge(devices.get(d).ordinal, bytesNeeded(d, backward), Long::sum);
            }
            for (Map.Entry<Integer, Long> e : perGpu.entrySet()) {
                CudaDevice cuda = devices.stream().filter(r -> r.ordinal == e.getKey()).findFirst().orElseThrow().cuda;
                cuda.makeCurrent();
                long free = cuda.freeBytes();
                if (e.getValue() > free) {
                    throw new GpuException(String.format(Locale.ROOT, "the ring needs %.2f GiB on GPU %d for its tensors, "
                            + "more than the %.2f GiB free there; use fewer tokens per device or fewer heads",
                            e.getValue() / (double) (1L << 30), e.getKey(), free / (double) (1L << 30)));
                }
            }
        }

        private DeviceBuffer make(CudaDevice cuda, String what, long bytes) {
            DeviceBuffer b = cuda.buffer(what, bytes);
            all.add(b);
            return b;
        }

        private Buffers allocate(int d, boolean backward) {
            CudaDevice c = devices.get(d).cuda;
            String on = " of ring device " + d;
            long qn = qElems(d);
            long kvn = kvElems(d);
            long slot = maxKvElems();
            long rows = rows(d);
            Buffers b = new Buffers();
            b.q = make(c, "Q" + on, 2 * qn);
            b.k = make(c, "K" + on, 2 * kvn);
            b.v = make(c, "V" + on, 2 * kvn);
            b.o = make(c, "O" + on, 2 * qn);
            b.lse = make(c, "LSE" + on, 4 * rows);
            b.part = new int[n];
            long[] oAddr = new long[n];
            long[] lseAddr = new long[n];
            int parts = 0;
            for (int s = 0; s < n; s++) {
                b.part[s] = shards.works(d, s) ? parts++ : -1;
                if (b.part[s] >= 0) {
                    b.oPart.add(make(c, "step " + s + "'s O" + on, 2 * qn));
                    b.lsePart.add(make(c, "step " + s + "'s LSE" + on, 4 * rows));
                    oAddr[b.part[s]] = RingDevice.address(b.oPart.get(b.part[s]).ptr);
                    lseAddr[b.part[s]] = RingDevice.address(b.lsePart.get(b.part[s]).ptr);
                }
            }
            b.oParts = make(c, "the step O table" + on, 8L * Math.max(1, parts));
            b.lseParts = make(c, "the step LSE table" + on, 8L * Math.max(1, parts));
            if (parts > 0) {
                b.oParts.copyIn(jcuda.Pointer.to(oAddr), 8L * parts);
                b.lseParts.copyIn(jcuda.Pointer.to(lseAddr), 8L * parts);
            }
            for (int i = 0; i < 2; i++) {
                b.kSlot[i] = make(c, "K slot " + i + on, 2 * slot);
                b.vSlot[i] = make(c, "V slot " + i + on, 2 * slot);
            }
            if (backward) {
                b.dO = make(c, "dO" + on, 2 * qn);
                b.dsum = make(c, "Dsum" + on, 4 * rows);
                b.dqAcc = make(c, "the dQ accumulator" + on, 4 * qn);
                b.dq = make(c, "dQ" + on, 2 * qn);
                b.dkStep = make(c, "a step's dK" + on, 2 * slot);
                b.dvStep = make(c, "a step's dV" + on, 2 * slot);
                for (int i = 0; i < 3; i++) {
                    b.dkAcc[i] = make(c, "dK accumulator " + i + on, 4 * slot);
                    b.dvAcc[i] = make(c, "dV accumulator " + i + on, 4 * slot);
                }
                b.dk = make(c, "dK" + on, 2 * kvn);
                b.dv = make(c, "dV" + on, 2 * kvn);
            }
            return b;
        }

        void upload(int d, AttentionInputs in) {
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            DType t = in.problem().dtype();
            copyIn(buf[d].q, t, in.q());
            copyIn(buf[d].k, t, in.k());
            copyIn(buf[d].v, t, in.v());
            if (buf[d].dO != null) {
                copyIn(buf[d].dO, t, in.dO());
            }
        }

        private void copyIn(DeviceBuffer b, DType t, java.nio.FloatBuffer values) {
            short[] bits = new short[values.remaining()];
            for (int i = 0; i < bits.length; i++) {
                bits[i] = HalfFloats.encode(t, values.get(i));
            }
            b.copyIn(jcuda.Pointer.to(bits), 2L * bits.length);
        }

        void fill(int d, long seed) {
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            DType t = shards.global().dtype();
            fillNormal(dev, buf[d].q, t, qElems(d), seed + 1);
            fillNormal(dev, buf[d].k, t, kvElems(d), seed + 2);
            fillNormal(dev, buf[d].v, t, kvElems(d), seed + 3);
            if (buf[d].dO != null) {
                fillNormal(dev, buf[d].dO, t, qElems(d), seed + 4);
            }
        }

        private void fillNormal(RingDevice dev, DeviceBuffer b, DType t, long elems, long seed) {
            dev.cuda.launchOn(dev.compute, KernelCatalog.fill(t, elems), b, elems, seed);
        }

        /**
         * Issues one whole run (forward, then backward when asked) on every device's streams; a timed run first holds
         * each compute stream for {@link #HOLD_NS} so that the host has queued the run before its clock starts (the
         * ring issues tens of calls per step; a GPU waiting for them would be timed idle).
         */
        void enqueue(boolean backward, boolean timed) {
            inBackward = false;
            for (int d = 0; d < n; d++) {
                RingDevice dev = devices.get(d);
                dev.cuda.makeCurrent();
                if (timed) {
                    dev.cuda.launchOn(dev.compute, new LaunchShape("ring_delay", 1, 32, 0), HOLD_NS);
                }
                dev.record(start[d], dev.compute);
                ownShardToSlot0(d);
            }
            RingMachine.play(forward, this);
            for (int d = 0; d < n; d++) {
                RingDevice dev = devices.get(d);
                dev.cuda.makeCurrent();
                computeWaitsComm(d);
                dev.cuda.launchOn(dev.compute, combine(d), buf[d].oParts, buf[d].lseParts, buf[d].oPart.size(), buf[d].o,
                        buf[d].lse, rows(d));
                dev.record(mid[d], dev.compute);
            }
            if (!backward) {
                return;
            }
            inBackward = true;
            for (int d = 0; d < n; d++) {
                RingDevice dev = devices.get(d);
                dev.cuda.makeCurrent();
                AttentionProblem p = shards.local(d);
                dev.cuda.launchOn(dev.compute, KernelCatalog.backwardPre(p), buf[d].o, buf[d].dO, buf[d].dsum, rows(d));
                dev.fill32(buf[d].dqAcc, 0, dev.compute);
                for (int slot : new int[] {0, RingProgram.HOME}) {
                    dev.fill32(buf[d].dkAcc[slot], 0, dev.compute);
                    dev.fill32(buf[d].dvAcc[slot], 0, dev.compute);
                }
                ownShardToSlot0(d);
            }
            RingMachine.play(backwardProgram, this);
            for (int d = 0; d < n; d++) {
                RingDevice dev = devices.get(d);
                dev.cuda.makeCurrent();
                computeWaitsComm(d);
                AttentionProblem p = shards.local(d);
                long qn = qElems(d);
                long kvn = kvElems(d);
                LaunchShape writer = dqWriter(d);
                if (writer != null) {
                    dev.cuda.launchOn(dev.compute, KernelCatalog.backwardDq(p, writer),
                            KernelCatalog.backwardDqArgs(p, writer, buf[d].dqAcc, buf[d].dq));
                } else {
                    dev.cuda.launchOn(dev.compute, convert(qn), buf[d].dqAcc, buf[d].dq, qn, (float) p.scale());
                }
                dev.cuda.launchOn(dev.compute, convert(kvn), buf[d].dkAcc[RingProgram.HOME], buf[d].dk, kvn, 1f);
                dev.cuda.launchOn(dev.compute, convert(kvn), buf[d].dvAcc[RingProgram.HOME], buf[d].dv, kvn, 1f);
                dev.record(end[d], dev.compute);
            }
        }

        private void ownShardToSlot0(int d) {
            RingDevice dev = devices.get(d);
            long bytes = 2 * kvElems(d);
            dev.copy(buf[d].kSlot[0].ptr, buf[d].k.ptr, bytes, dev.compute);
            dev.copy(buf[d].vSlot[0].ptr, buf[d].v.ptr, bytes, dev.compute);
        }

        private void computeWaitsComm(int d) {
            RingDevice dev = devices.get(d);
            dev.record(commDone[d], dev.comm);
            dev.wait(dev.compute, commDone[d]);
        }

        /**
         * The backward launch of device d's steps, which all write its dQ accumulator in one layout (KernelCatalog
         * .permutesDq), or null when the device has no steps.
         */
        private LaunchShape dqWriter(int d) {
            LaunchShape writer = null;
            for (StepPlan step : plans[d]) {
                if (step == null) {
                    continue;
                }
                if (writer == null) {
                    writer = step.bwd;
                } else if (KernelCatalog.permutesDq(step.bwd) != KernelCatalog.permutesDq(writer)) {
                    throw new IllegalStateException("device " + d + ": backward steps of two dQ layouts ("
                            + writer.kernel() + ", " + step.bwd.kernel() + ") share one accumulator");
                }
            }
            return writer;
        }

        /** fp32 to the element type, times a scale: the backward's dQ conversion kernel. */
        private LaunchShape convert(long elems) {
            return KernelCatalog.toElements(shards.global().dtype(), elems);
        }

        /** One warp per row, as the backward's preprocess. */
        private LaunchShape combine(int d) {
            AttentionProblem p = shards.global();
            long rows = rows(d);
            int perBlock = KernelCatalog.PRE_THREADS / 32;
            return new LaunchShape("ring_combine_" + p.dtype().label() + "_d" + p.headDim(), (rows + perBlock - 1) / perBlock,
                    KernelCatalog.PRE_THREADS, 0);
        }

        private LaunchShape add(long elems) {
            long pairs = elems / 2;
            return new LaunchShape("ring_add_" + shards.global().dtype().label(), (pairs + KernelCatalog.ELEMENTWISE_THREADS - 1)
                    / KernelCatalog.ELEMENTWISE_THREADS, KernelCatalog.ELEMENTWISE_THREADS, 0);
        }

        void synchronize() {
            for (RingDevice dev : devices) {
                dev.cuda.makeCurrent();
                dev.synchronize();
                dev.cuda.sync();
            }
        }

        Rep rep(boolean backward) {
            double wall = 0;
            double fwdWall = 0;
            double bwdWall = 0;
            double[] deviceMs = new double[n];
            double[] kernelMs = new double[n];
            double[] commMs = new double[n];
            for (int d = 0; d < n; d++) {
                RingDevice dev = devices.get(d);
                dev.cuda.makeCurrent();
                double f = dev.elapsedMs(start[d], mid[d]);
                double b = backward ? dev.elapsedMs(mid[d], end[d]) : 0;
                deviceMs[d] = f + b;
                for (int s = 0; s < n; s++) {
                    if (plans[d][s] != null) {
                        kernelMs[d] += dev.elapsedMs(stepStart[d][s], stepEnd[d][s]);
                        if (backward) {
                            kernelMs[d] += dev.elapsedMs(bwdStepStart[d][s], bwdStepEnd[d][s]);
                        }
                    }
                }
                for (Map.Entry<Integer, CUevent[]> e : departures.entrySet()) {
                    boolean backwardExchange = e.getKey() < 0;
                    CUevent from = e.getValue()[d];
                    CUevent to = arrivals.get(e.getKey())[d];
                    if (from != null && to != null && (backward || !backwardExchange)) {
                        commMs[d] += dev.elapsedMs(from, to);
                    }
                }
                wall = Math.max(wall, deviceMs[d]);
                fwdWall = Math.max(fwdWall, f);
                bwdWall = Math.max(bwdWall, b);
            }
            return new Rep(wall, fwdWall, bwdWall, deviceMs, kernelMs, commMs);
        }

        AttentionOutputs read(int d, boolean backward) {
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            DType t = shards.global().dtype();
            int qn = (int) qElems(d);
            int kvn = (int) kvElems(d);
            float[] o = buf[d].o.readHalves("O of ring device " + d, t, qn);
            float[] lse = buf[d].lse.readFloats("LSE of ring device " + d, (int) rows(d));
            if (!backward) {
                return AttentionOutputs.forward(o, lse);
            }
            return AttentionOutputs.withGradients(o, lse, buf[d].dq.readHalves("dQ of ring device " + d, t, qn),
                    buf[d].dk.readHalves("dK of ring device " + d, t, kvn),
                    buf[d].dv.readHalves("dV of ring device " + d, t, kvn));
        }

        // ---- RingMachine: the program's operations on this ring's streams ----

        @Override
        public void commWaitsCompute(int d) {
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            dev.commWaitsCompute();
        }

        @Override
        public void exchange(Exchange e) {
            List<RingTransport.Move> moves = new ArrayList<>();
            for (Transfer t : e.transfers()) {
                Buffers from = buf[t.from()];
                Buffers to = buf[t.to()];
                if (e.payload() == Payload.KV) {
                    long bytes = 2 * kvElems(Math.floorMod(t.to() - e.step(), n));
                    moves.add(new RingTransport.Move(t.from(), t.to(), from.kSlot[t.fromSlot()].ptr, to.kSlot[t.toSlot()].ptr, bytes));
                    moves.add(new RingTransport.Move(t.from(), t.to(), from.vSlot[t.fromSlot()].ptr, to.vSlot[t.toSlot()].ptr, bytes));
                } else {
                    long bytes = 4 * kvElems(Math.floorMod(t.from() - e.step(), n));
                    moves.add(new RingTransport.Move(t.from(), t.to(), from.dkAcc[t.fromSlot()].ptr, to.dkAcc[t.toSlot()].ptr, bytes));
                    moves.add(new RingTransport.Move(t.from(), t.to(), from.dvAcc[t.fromSlot()].ptr, to.dvAcc[t.toSlot()].ptr, bytes));
                }
            }
            for (int d = 0; d < n; d++) {
                if (e.involves(d)) {
                    RingDevice dev = devices.get(d);
                    dev.cuda.makeCurrent();
                    CUevent[] ev = events(departures, e.id());
                    if (ev[d] == null) {
                        ev[d] = dev.timingEvent();
                    }
                    dev.record(ev[d], dev.comm);
                }
            }
            transport.group(moves);
        }

        private CUevent[] events(Map<Integer, CUevent[]> table, int id) {
            int key = inBackward ? -1 - id : id;
            return table.computeIfAbsent(key, k -> new CUevent[n]);
        }

        private CUevent[] arrivalEvents(int id) {
            return events(arrivals, id);
        }

        @Override
        public void markArrival(int d, int exchangeId) {
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            CUevent[] ev = arrivalEvents(exchangeId);
            if (ev[d] == null) {
                ev[d] = dev.timingEvent();
            }
            dev.record(ev[d], dev.comm);
        }

        @Override
        public void computeWaitsArrival(int d, int exchangeId) {
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            dev.wait(dev.compute, arrivalEvents(exchangeId)[d]);
        }

        @Override
        public void kernel(Compute c) {
            int d = c.device();
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            StepPlan sp = plans[d][c.step()];
            AttentionProblem p = sp.p;
            GpuBackend.Tables t = sp.tables;
            Buffers b = buf[d];
            if (!inBackward) {
                int part = b.part[c.step()];
                dev.record(stepStart[d][c.step()], dev.compute);
                Object[] args = {b.q, b.kSlot[c.kvSlot()], b.vSlot[c.kvSlot()], b.oPart.get(part), b.lsePart.get(part),
                        t.rowOrder, t.variantOf, t.rowPtr, t.rowPartial, t.rowKv, t.rowMask, t.bits, p.heads(),
                        p.kvHeads(), p.seqQ(), p.seqKv(), sp.lists.numQBlocks(), (float) p.scale(), (float) p.softcap()};
                dev.cuda.launchOn(dev.compute, sp.fwd, KernelCatalog.withSpans(args, sp.fwd, t.fwdSpans));
                dev.record(stepEnd[d][c.step()], dev.compute);
            } else {
                dev.record(bwdStepStart[d][c.step()], dev.compute);
                dev.cuda.launchOn(dev.compute, sp.bwd, b.q, b.kSlot[c.kvSlot()], b.vSlot[c.kvSlot()], b.dO, b.lse, b.dsum,
                        b.dqAcc, b.dkStep, b.dvStep, t.dkvParts, t.colLaunch, t.colParts, t.variantOf, t.colPtr,
                        t.colPartial, t.colQ, t.colMask, t.bitsT, p.heads(), p.kvHeads(), p.seqQ(), p.seqKv(), sp.lists.numKvBlocks(), (float) p.scale(),
                        (float) p.softcap());
                dev.record(bwdStepEnd[d][c.step()], dev.compute);
            }
        }

        @Override
        public void accumulate(Compute c) {
            int d = c.device();
            RingDevice dev = devices.get(d);
            dev.cuda.makeCurrent();
            long kvn = kvElems(Math.floorMod(d - c.step(), n));
            Buffers b = buf[d];
            dev.cuda.launchOn(dev.compute, add(kvn), b.dkStep, b.dkAcc[c.accSlot()], kvn);
            dev.cuda.launchOn(dev.compute, add(kvn), b.dvStep, b.dvAcc[c.accSlot()], kvn);
        }

        @Override
        public void close() {
            for (int d = 0; d < n; d++) {
                RingDevice dev = devices.get(d);
                dev.cuda.makeCurrent();
                for (CUevent[] row : new CUevent[][] {stepStart[d], stepEnd[d], bwdStepStart[d], bwdStepEnd[d],
                        {start[d], mid[d], end[d], commDone[d]}}) {
                    for (CUevent e : row) {
                        if (e != null) {
                            dev.destroy(e);
                        }
                    }
                }
                for (Map<Integer, CUevent[]> table : List.of(arrivals, departures)) {
                    for (CUevent[] ev : table.values()) {
                        if (ev[d] != null) {
                            dev.destroy(ev[d]);
                        }
                    }
                }
            }
            all.forEach(DeviceBuffer::close);
            tables.forEach(GpuBackend.Tables::close);
        }
    }
}
