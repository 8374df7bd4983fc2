package saw.engine.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.FloatArrays;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.PartialAttention;
import saw.engine.attention.Pass;
import saw.engine.attention.RunRows;
import saw.engine.attention.SampledCheck;
import saw.engine.attention.TileLists;
import saw.engine.guard.Estimate;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

/**
 * saw's CUDA kernels through JCuda on one GPU (GPU 0 unless opened on another): block-sparse forward and backward
 * for bf16/fp16, head dims 64 and 128, tiles q{64,128} x kv{32,64,128}; and at head dim 256 with tiles 64x32 and
 * 64x64, forward and backward. Not thread-safe; each call makes the context current on its thread.
 */
public final class GpuBackend implements AttentionBackend.SinkTiming, PartialAttention {
    /** Compute capability the fatbin's oldest code (sm_80) needs. */
    static final int MIN_MAJOR = 8;
    /** The scratch a timed run fills before each timed launch sequence, as triton's do_bench does: 256 MiB. */
    static final long FLUSH_BYTES = 256L << 20;

    private final CudaDevice cuda;
    private final String description;
    private final int major;
    private ForwardKernel forwardKernel;
    private BackwardKernel backwardKernel;
    private String identity = "";

    private GpuBackend(CudaDevice cuda, String description, int major, ForwardKernel forwardKernel,
            BackwardKernel backwardKernel) {
        this.cuda = cuda;
        this.description = description;
        this.major = major;
        this.forwardKernel = forwardKernel;
        this.backwardKernel = backwardKernel;
    }

    /**
     * Which kernel families run where and the settings that choose them, in a sentence.
     *
     * @throws IllegalArgumentException naming the setting when one names no family
     */
    public static String kernelFamilies() {
        return KernelCatalog.families();
    }

    /** What is there, in a sentence a user understands; never throws. */
    public static GpuStatus detect() {
        try {
            return detect(new JCudaProbe());
        } catch (RuntimeException | LinkageError e) {
            return new GpuStatus(false, "The GPU could not be queried: " + e.getMessage(), "", List.of(), false, 0);
        }
    }

    static GpuStatus detect(DeviceProbe probe) {
        boolean built = probe.kernelsBuilt();
        String driverProblem = probe.initDriver();
        if (driverProblem != null) {
            return new GpuStatus(false, "No usable CUDA driver: " + driverProblem + ". The GPU backend needs an NVIDIA GPU "
                    + "and its driver; use --backend cpu on this machine.", "", List.of(), built, 0);
        }
        int v = probe.driverVersion();
        String driver = (v / 1000) + "." + (v % 1000) / 10;
        int count = probe.deviceCount();
        if (count == 0) {
            return new GpuStatus(false, "The CUDA driver " + driver + " is installed but sees no GPU; use --backend cpu "
                    + "on this machine.", driver, List.of(), built, 0);
        }
        List<String> devices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            DeviceProbe.Device d = probe.device(i);
            devices.add(String.format(Locale.ROOT, "%d: %s, compute capability %d.%d, %.1f GiB", i, d.name(), d.major(),
                    d.minor(), d.memoryBytes() / (double) (1L << 30)));
        }
        DeviceProbe.Device first = probe.device(0);
        if (first.major() < MIN_MAJOR) {
            return new GpuStatus(false, "GPU 0 (" + first.name() + ") has compute capability " + first.major() + "."
                    + first.minor() + "; saw's kernels need " + MIN_MAJOR + ".0 or newer (Ampere, Hopper or later).",
                    driver, devices, built, first.memoryBytes());
        }
        if (!built) {
            return new GpuStatus(false, "This build of saw has no CUDA kernels: nvcc was not found when it was built. "
                    + "Rebuild with nvcc on the PATH or at /usr/local/bin/nvcc.", driver, devices, false, first.memoryBytes());
        }
        return new GpuStatus(true, "GPU 0 (" + first.name() + ", compute capability " + first.major() + "." + first.minor()
                + ") is ready, CUDA driver " + driver + ".", driver, devices, true, first.memoryBytes());
    }

    /**
     * Opens GPU 0 and loads the kernels.
     *
     * @throws GpuException with {@link #detect()}'s sentence when the GPU backend cannot run here
     */
    public static GpuBackend open() {
        return open(0);
    }

    /**
     * Opens GPU {@code ordinal} (0-based, as {@link GpuStatus#devices()} lists them) and loads the kernels.
     *
     * @throws GpuException with {@link #detect()}'s sentence when the GPU backend cannot run here, or when there is no
     *     such GPU
     */
    public static GpuBackend open(int ordinal) {
        GpuStatus status = detect();
        if (!status.usable()) {
            throw new GpuException(status.message());
        }
        if (ordinal < 0 || ordinal >= status.devices().size()) {
            throw new GpuException("there is no GPU " + ordinal + " here; this machine has " + status.devices().size()
                    + " (" + String.join("; ", status.devices()) + ")");
        }
        ForwardKernel fwd = ForwardKernel.configured();
        BackwardKernel bwd = BackwardKernel.configured();
        CudaDevice cuda = new CudaDevice(ordinal);
        JCudaProbe probe = new JCudaProbe();
        DeviceProbe.Device d = probe.device(ordinal);
        GpuBackend gpu = new GpuBackend(cuda, d.name(), d.major(), fwd, bwd);
        gpu.identity = d.name() + "|cc" + d.major() + "." + d.minor() + "|driver " + probe.driverVersion() + "|kernels "
                + CudaDevice.kernelBuildId();
        return gpu;
    }

    /**
     * The GPU's name, compute capability, driver version and the kernel fatbin's build id, joined by '|': what a tuned
     * choice is valid for.
     */
    public String identity() {
        return identity.isEmpty() ? description + "|cc" + major + ".x|driver ?|kernels " + CudaDevice.kernelBuildId() : identity;
    }

    /** The tile sizes the kernels take for this problem's head dim, in catalogue order. */
    public static List<KernelTiles> tileSizes() {
        List<KernelTiles> all = new ArrayList<>();
        for (int bq : KernelCatalog.TILE_Q) {
            for (int bkv : KernelCatalog.TILE_KV) {
                all.add(new KernelTiles(bq, bkv));
            }
        }
        return all;
    }

    /** Whether the Hopper (wgmma) families run this problem with these tiles on this GPU. */
    public boolean hopperFits(AttentionProblem p, KernelTiles tiles) {
        return KernelCatalog.wgmmaFits(p, tiles, major);
    }

    /** Whether the 64-row Hopper forward of this family (64x64 tiles) runs this problem on this GPU. */
    public boolean q64HopperForwardFits(AttentionProblem p, KernelTiles tiles, ForwardKernel family) {
        return KernelCatalog.q64WgmmaFits(p, tiles, family, major);
    }

    /** Whether the head dim 256 Hopper backward runs this problem with these tiles on this GPU for this family. */
    public boolean wideHopperBackwardFits(AttentionProblem p, KernelTiles tiles, BackwardKernel family) {
        return KernelCatalog.wideBackwardWgmmaFits(p, tiles, family, major);
    }

    /** On another driver (a fake one in tests), with the kernels of {@code image}. */
    static GpuBackend open(Driver driver, byte[] image, String device) {
        return open(driver, image, device, 8);
    }

    /** As {@link #open(Driver, byte[], String)}, on a GPU of compute capability {@code major}.0. */
    static GpuBackend open(Driver driver, byte[] image, String device, int major) {
        return new GpuBackend(new CudaDevice(driver, 0, image), device, major, ForwardKernel.MMA, BackwardKernel.MMA);
    }

    /** The device, for the fault drill's direct calls. */
    CudaDevice cuda() {
        return cuda;
    }

    /** The kernels of the full set that the loaded fatbin holds. */
    public List<String> kernelNames() {
        cuda.makeCurrent();
        List<String> found = new ArrayList<>();
        for (String n : KernelCatalog.allNames()) {
            if (cuda.hasKernel(n)) {
                found.add(n);
            }
        }
        return found;
    }

    /** The tile size to compile a layout with for this pass on this GPU when the user has not chosen one. */
    public KernelTiles recommendedTiles(Pass pass) {
        return KernelCatalog.recommended(pass, major);
    }

    /** Null when the kernels can run this problem with this layout's tiles, else why not. */
    public static String unsupported(AttentionProblem p, TileLayout layout) {
        return KernelCatalog.unsupported(p, new KernelTiles(layout.blockQ(), layout.blockKv()));
    }

    /** The forward kernel family preferred from now on (the backward is unchanged). */
    public void forwardKernel(ForwardKernel kernel) {
        this.forwardKernel = kernel;
    }

    public ForwardKernel forwardKernel() {
        return forwardKernel;
    }

    /** The backward kernel family preferred from now on (the forward is unchanged). */
    public void backwardKernel(BackwardKernel kernel) {
        this.backwardKernel = kernel;
    }

    public BackwardKernel backwardKernel() {
        return backwardKernel;
    }

    @Override
    public String name() {
        return "gpu";
    }

    @Override
    public String device() {
        return description;
    }

    @Override
    public AttentionOutputs forward(AttentionInputs in, TileLayout layout) {
        return run(in, layout, false);
    }

    @Override
    public AttentionOutputs forwardBackward(AttentionInputs in, TileLayout layout) {
        return run(in.requireGradient(), layout, true);
    }

    private AttentionOutputs run(AttentionInputs in, TileLayout layout, boolean backward) {
        AttentionProblem p = in.problem();
        Plan plan = plan(p, layout);
        cuda.makeCurrent();
        SizeGuard.gpuRun(p, layout, backward ? Pass.BWD : Pass.FWD, 0, cuda.freeBytes()).orThrow();
        cuda.syncEachLaunch(true);
        int qn = (int) AttentionInputs.qSize(p);
        int rows = p.batch() * p.heads() * p.seqQ();
        try (Tables t = uploadTables(plan);
             DeviceBuffer q = cuda.uploadHalves("Q", p.dtype(), in.q());
             DeviceBuffer k = cuda.uploadHalves("K", p.dtype(), in.k());
             DeviceBuffer v = cuda.uploadHalves("V", p.dtype(), in.v());
             DeviceBuffer o = cuda.buffer("O", 2L * qn);
             DeviceBuffer lse = cuda.buffer("LSE", 4L * rows);
             DeviceBuffer sinks = in.hasSinks() ? cuda.uploadFloats("sinks", in.sinks()) : null) {
            o.fill16("O", DeviceBuffer.NAN16);
            lse.fill32("LSE", DeviceBuffer.NAN32);
            launchForward(plan, t, q, k, v, o, lse);
            if (sinks != null) {
                cuda.launch(KernelCatalog.sinkApply(p), o, lse, sinks, (long) rows, p.heads(), p.seqQ(), p.headDim());
            }
            float[] oh = o.readHalves("O", p.dtype(), qn);
            float[] lseh = lse.readFloats("LSE", rows);
            if (!backward) {
                return AttentionOutputs.forward(oh, lseh);
            }
            try (DeviceBuffer dO = cuda.uploadHalves("dO", p.dtype(), in.dO());
                 GradientBuffers g = new GradientBuffers(cuda, p)) {
                launchBackward(plan, t, q, k, v, o, lse, dO, g.dsum, g.dqAcc, g.dq, g.dk, g.dv);
                AttentionOutputs out = g.read(oh, lseh);
                if (sinks == null) {
                    return out;
                }
                try (DeviceBuffer dsink = cuda.buffer("dSink", 4L * p.heads())) {
                    dsink.fill32("dSink", 0);
                    cuda.launch(KernelCatalog.sinkGrad(p), lse, g.dsum, sinks, dsink, (long) rows, p.heads(), p.seqQ());
                    return out.withSinkGradient(dsink.readFloats("dSink", p.heads()));
                }
            }
        }
    }

    /**
     * A pass on inputs drawn on the GPU from {@code seed} (Q, K, V and for the backward dO, as a timed run's first
     * input set), its outputs left on the device, checked against the fp64 reference on a seeded sample of
     * {@code rowsPerHead} rows per head that are copied back one by one ({@link SampledCheck}). No tensor crosses
     * to the host whole, so this runs problems whose tensors pass 2^31 elements.
     */
    public SampledCheck.Result checkSampled(AttentionProblem p, TileLayout layout, boolean backward, long seed, int rowsPerHead) {
        return onDevice(p, layout, backward, seed, rows -> SampledCheck.check(p, layout, backward, rows, rowsPerHead, seed));
    }

    /**
     * Runs a pass as {@link #checkSampled} does and hands {@code reader} the rows of its inputs and outputs, read from
     * the device on demand while the run's buffers live; returns what {@code reader} returns.
     */
    public <T> T onDevice(AttentionProblem p, TileLayout layout, boolean backward, long seed, Function<RunRows, T> reader) {
        Plan plan = plan(p, layout);
        cuda.makeCurrent();
        SizeGuard.gpuRun(p, layout, backward ? Pass.BWD : Pass.FWD, 0, cuda.freeBytes()).orThrow();
        cuda.syncEachLaunch(true);
        long qn = p.qElements();
        long kvn = p.kvElements();
        long rows = p.rows();
        // q k v o lse [dO dsum dqAcc dq dk dv]
        BufferList made = new BufferList();
        try (Tables t = uploadTables(plan)) {
            DeviceBuffer q = made.add(cuda.drawn("Q", p.dtype(), qn, seed * 31 + 1));
            DeviceBuffer k = made.add(cuda.drawn("K", p.dtype(), kvn, seed * 31 + 2));
            DeviceBuffer v = made.add(cuda.drawn("V", p.dtype(), kvn, seed * 31 + 3));
            DeviceBuffer o = made.add(cuda.buffer("O", 2 * qn));
            DeviceBuffer lse = made.add(cuda.buffer("LSE", 4 * rows));
            o.fill16("O", DeviceBuffer.NAN16);
            lse.fill32("LSE", DeviceBuffer.NAN32);
            launchForward(plan, t, q, k, v, o, lse);
            DeviceBuffer[] grads = new DeviceBuffer[4];
            if (backward) {
                DeviceBuffer dO = made.add(cuda.drawn("dO", p.dtype(), qn, seed * 31 + 4));
                DeviceBuffer dsum = made.add(cuda.buffer("Dsum", 4 * rows));
                DeviceBuffer dqAcc = made.add(cuda.buffer("dQ accumulator", 4 * qn));
                DeviceBuffer dq = made.add(cuda.buffer("dQ", 2 * qn));
                DeviceBuffer dk = made.add(cuda.buffer("dK", 2 * kvn));
                DeviceBuffer dv = made.add(cuda.buffer("dV", 2 * kvn));
                dq.fill16("dQ", DeviceBuffer.NAN16);
                dk.fill16("dK", DeviceBuffer.NAN16);
                dv.fill16("dV", DeviceBuffer.NAN16);
                launchBackward(plan, t, q, k, v, o, lse, dO, dsum, dqAcc, dq, dk, dv);
                grads = new DeviceBuffer[] {dO, dq, dk, dv};
            }
            DeviceBuffer[] g = grads;
            RunRows found = (tensor, b, h, from, n) -> {
                switch (tensor) {
                    case Q: return rows16(p, q, tensor, b, h, from, n);
                    case K: return rows16(p, k, tensor, b, h, from, n);
                    case V: return rows16(p, v, tensor, b, h, from, n);
                    case O: return rows16(p, o, tensor, b, h, from, n);
                    case LSE: return lse.readFloats("LSE", ((long) b * p.heads() + h) * p.seqQ() + from, n);
                    case DO: return rows16(p, g[0], tensor, b, h, from, n);
                    case DQ: return rows16(p, g[1], tensor, b, h, from, n);
                    case DK: return rows16(p, g[2], tensor, b, h, from, n);
                    default: return rows16(p, g[3], tensor, b, h, from, n);
                }
            };
            return reader.apply(found);
        } finally {
            made.close();
        }
    }

    /** {@code n} rows of a 16-bit tensor from token {@code from} of (batch, head), decoded; 64-bit offsets throughout. */
    private static float[] rows16(AttentionProblem p, DeviceBuffer buffer, RunRows.Tensor t, int b, int h, int from, int n) {
        boolean kv = t == RunRows.Tensor.K || t == RunRows.Tensor.V || t == RunRows.Tensor.DK || t == RunRows.Tensor.DV;
        long first = rowOffset(p, kv, b, h, from);
        return buffer.readHalves(t.name(), p.dtype(), first, Math.multiplyExact(n, p.headDim()));
    }

    /** The element offset of token {@code token} of (batch, head) in a [batch, heads, seq, headDim] tensor. */
    static long rowOffset(AttentionProblem p, boolean kv, int b, int h, int token) {
        long heads = kv ? p.kvHeads() : p.heads();
        long seq = kv ? p.seqKv() : p.seqQ();
        return ((b * heads + h) * seq + token) * p.headDim();
    }

    /** The backward of a part of a ring: O and LSE come from the merged forward, not from this layout. */
    @Override
    public AttentionOutputs backward(AttentionInputs in, TileLayout layout, AttentionOutputs whole) {
        AttentionProblem p = in.requireGradient().problem();
        Plan plan = plan(p, layout, false);
        cuda.makeCurrent();
        SizeGuard.gpuRun(p, layout, Pass.BWD, 0, cuda.freeBytes()).orThrow();
        cuda.syncEachLaunch(true);
        java.nio.FloatBuffer lseIn = whole.get(AttentionOutputs.Output.LSE);
        try (Tables t = uploadTables(plan);
             DeviceBuffer q = cuda.uploadHalves("Q", p.dtype(), in.q());
             DeviceBuffer k = cuda.uploadHalves("K", p.dtype(), in.k());
             DeviceBuffer v = cuda.uploadHalves("V", p.dtype(), in.v());
             DeviceBuffer o = cuda.uploadHalves("O", p.dtype(), whole.get(AttentionOutputs.Output.O));
             DeviceBuffer lse = cuda.uploadFloats("LSE", lseIn);
             DeviceBuffer dO = cuda.uploadHalves("dO", p.dtype(), in.dO());
             GradientBuffers g = new GradientBuffers(cuda, p)) {
            launchBackward(plan, t, q, k, v, o, lse, dO, g.dsum, g.dqAcc, g.dq, g.dk, g.dv);
            return g.read(FloatArrays.copyOf(whole.get(AttentionOutputs.Output.O)), FloatArrays.copyOf(lseIn));
        }
    }

    /** With {@code sinks}, the sink kernels run after the forward, and dSink after the backward. */
    @Override
    public PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed, boolean sinks) {
        Plan plan = plan(problem, layout);
        cuda.makeCurrent();
        cuda.syncEachLaunch(false);
        return new TimedRun(plan, pass, seed, sinks);
    }

    @Override
    public void close() {
        cuda.close();
    }

    /** Validated problem, its tables and its launch shapes. */
    private static final class Plan {
        final AttentionProblem p;
        final TileLayout layout;
        final TileLists lists;
        /** The forward's lists: {@link #lists}, or the mask's at 128x64 for the head dim 256 forward with 128-row CTAs. */
        final TileLists fwdLists;
        final LaunchShape fwd;
        final LaunchShape bwd;

        Plan(AttentionProblem p, TileLayout layout, TileLists lists, TileLists fwdLists, LaunchShape fwd, LaunchShape bwd) {
            this.p = p;
            this.layout = layout;
            this.lists = lists;
            this.fwdLists = fwdLists;
            this.fwd = fwd;
            this.bwd = bwd;
        }
    }

    /**
     * The last run's tile tables: bytes on the device, the lists held (one per distinct head: identical heads share
     * one), seconds to build them on the host and to copy them to the device.
     */
    public record TableCost(long deviceBytes, int lists, int heads, double buildSeconds, double uploadSeconds,
                            int splitColumns, int columnParts) {
        @Override
        public String toString() {
            String split = splitColumns == 0 ? "" : String.format(Locale.ROOT, "; the backward walks %d long column%s in %d "
                    + "parts", splitColumns, splitColumns == 1 ? "" : "s", columnParts);
            return String.format(Locale.ROOT, "tile tables %.1f MiB on the GPU (%d list%s for %d heads), built in %.2f s, "
                    + "uploaded in %.1f ms%s", deviceBytes / 1048576.0, lists, lists == 1 ? "" : "s", heads, buildSeconds,
                    uploadSeconds * 1e3, split);
        }
    }

    private TableCost lastTables;

    /** The tile tables of the last run prepared or checked, or null before one. */
    public TableCost lastTables() {
        return lastTables;
    }

    private Plan plan(AttentionProblem p, TileLayout layout) {
        return plan(p, layout, true);
    }

    /** With {@code runsForward} false (no forward will be launched) the forward's own lists are not built. */
    private Plan plan(AttentionProblem p, TileLayout layout, boolean runsForward) {
        KernelTiles tiles = new KernelTiles(layout.blockQ(), layout.blockKv());
        String why = KernelCatalog.unsupported(p, tiles);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        long listed = listedTiles(layout);
        if (listed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the tile lists of this layout hold " + listed + " tiles, past the "
                    + Integer.MAX_VALUE + " that the kernels' 32-bit tile indices reach; use larger tiles or shorter sequences");
        }
        SizeGuard.tileTables(p, layout).orThrow();
        long start = System.nanoTime();
        TileLists lists = TileLists.of(p, layout);
        boolean q128 = runsForward && KernelCatalog.wideQ128Fits(p, tiles, forwardKernel, major);
        TileLists fwdLists = q128 ? forwardLists(p, layout) : lists;
        lastTables = new TableCost(0, layout.variantCount(), p.batch() * p.heads(), (System.nanoTime() - start) / 1e9, 0,
                lists.colSplitItems(), lists.colPartCount());
        LaunchShape fwd = q128 ? KernelCatalog.forwardWideQ128(p, fwdLists.numQBlocks(), forwardKernel)
                : KernelCatalog.forwardFor(p, tiles, lists.numQBlocks(), forwardKernel, major,
                        KernelCatalog.rowSpans(lists));
        return new Plan(p, layout, lists, fwdLists, fwd,
                KernelCatalog.backwardLaunch(KernelCatalog.backwardFor(p, tiles, lists.numKvBlocks(), backwardKernel, major),
                        p, lists));
    }

    /**
     * The lists of the head dim 256 forward with 128-row CTAs: the layout's mask compiled again at
     * {@link KernelCatalog#WIDE_Q128_TILES}. The mask is the specification, so its tiles, bit tiles and work order
     * at 128 rows come from the same code as every layout's, exact by construction (docs/kernel-notes.md says why
     * this and not pairs of the 64x64 lists).
     */
    static TileLists forwardLists(AttentionProblem p, TileLayout layout) {
        KernelTiles t = KernelCatalog.WIDE_Q128_TILES;
        TileLayout rows = layout.mask().compile(t.blockQ(), t.blockKv());
        SizeGuard.tileTables(p, rows).orThrow();
        return TileLists.of(p, rows);
    }

    /** Tiles the kernels' lists hold: the non-empty tiles of every distinct head (identical heads share one list). */
    static long listedTiles(TileLayout layout) {
        long n = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            n += layout.grid(v).count(TileClass.PARTIAL) + layout.grid(v).count(TileClass.FULL);
        }
        return n;
    }

    /** The plan's tables on the device, timed into {@link #lastTables()}. */
    private Tables uploadTables(Plan plan) {
        long start = System.nanoTime();
        Tables t = new Tables(cuda, plan.lists, plan.fwdLists, plan.p.headDim(), KernelCatalog.readsSpans(plan.fwd));
        double seconds = (System.nanoTime() - start) / 1e9;
        long bytes = t.bytes();
        TableCost built = lastTables;
        lastTables = new TableCost(bytes, built.lists(), built.heads(), built.buildSeconds(), seconds, built.splitColumns(),
                built.columnParts());
        return t;
    }

    /** The layout tables on the device. */
    static final class Tables extends BufferList {
        final DeviceBuffer rowOrder;
        final DeviceBuffer colLaunch;
        final DeviceBuffer colParts;
        final DeviceBuffer colPartStarts;
        /** The split backward items' parts' fp32 dK and dV (TileLists#colLaunch). */
        final DeviceBuffer dkvParts;
        final DeviceBuffer variantOf;
        final DeviceBuffer rowPtr;
        final DeviceBuffer rowPartial;
        final DeviceBuffer rowKv;
        final DeviceBuffer rowMask;
        final DeviceBuffer colPtr;
        final DeviceBuffer colPartial;
        final DeviceBuffer colQ;
        final DeviceBuffer colMask;
        final DeviceBuffer bits;
        final DeviceBuffer bitsT;
        /** The forward's row tables: those above, or its own lists' (Plan#fwdLists). */
        final DeviceBuffer fwdOrder;
        final DeviceBuffer fwdRowPtr;
        final DeviceBuffer fwdRowPartial;
        final DeviceBuffer fwdRowKv;
        final DeviceBuffer fwdRowMask;
        final DeviceBuffer fwdBits;
        /** The forward's bit tiles as row spans (TileLists#rowSpans) when its kernel reads them, else null. */
        final DeviceBuffer fwdSpans;

        /** The tables of {@code t}, whose rows the forward reads too, with their row spans when {@code spans}. */
        Tables(CudaDevice cuda, TileLists t, int headDim, boolean spans) {
            this(cuda, t, t, headDim, spans);
        }

        /**
         * The tables of {@code t}, and {@code fwd}'s row tables for the forward when it is another list, with the
         * forward's row spans when {@code spans} (its kernel reads them: {@link KernelCatalog#readsSpans}).
         */
        Tables(CudaDevice cuda, TileLists t, TileLists fwd, int headDim, boolean spans) {
            try {
                rowOrder = add(cuda.upload("row order", t.rowOrder()));
                colLaunch = add(cuda.upload("column launch order", t.colLaunch()));
                colParts = add(cuda.upload("column parts", t.colParts()));
                colPartStarts = add(cuda.upload("column part starts", t.colPartStarts()));
                dkvParts = add(cuda.buffer("column parts' dK and dV", 8L * t.colPartCount() * t.blockKv() * headDim));
                variantOf = add(cuda.upload("variants", t.variantOf()));
                rowPtr = add(cuda.upload("row pointers", t.rowPtr()));
                rowPartial = add(cuda.upload("row partial counts", t.rowPartial()));
                rowKv = add(cuda.upload("row kv-blocks", t.rowKv()));
                rowMask = add(cuda.upload("row bit tiles", t.rowMask()));
                colPtr = add(cuda.upload("column pointers", t.colPtr()));
                colPartial = add(cuda.upload("column partial counts", t.colPartial()));
                colQ = add(cuda.upload("column q-blocks", t.colQ()));
                colMask = add(cuda.upload("column bit tiles", t.colMask()));
                bits = add(cuda.upload("bit tiles", t.bits()));
                bitsT = add(cuda.upload("transposed bit tiles", t.bitsT()));
                boolean own = fwd != t;
                fwdOrder = own ? add(cuda.upload("forward row order", fwd.rowOrder())) : rowOrder;
                fwdRowPtr = own ? add(cuda.upload("forward row pointers", fwd.rowPtr())) : rowPtr;
                fwdRowPartial = own ? add(cuda.upload("forward row partial counts", fwd.rowPartial())) : rowPartial;
                fwdRowKv = own ? add(cuda.upload("forward row kv-blocks", fwd.rowKv())) : rowKv;
                fwdRowMask = own ? add(cuda.upload("forward row bit tiles", fwd.rowMask())) : rowMask;
                fwdBits = own ? add(cuda.upload("forward bit tiles", fwd.bits())) : bits;
                fwdSpans = spans ? add(cuda.upload("forward row spans", fwd.rowSpans())) : null;
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    private void launchForward(Plan plan, Tables t, DeviceBuffer q, DeviceBuffer k, DeviceBuffer v, DeviceBuffer o,
                               DeviceBuffer lse) {
        AttentionProblem p = plan.p;
        Object[] args = {q, k, v, o, lse, t.fwdOrder, t.variantOf, t.fwdRowPtr, t.fwdRowPartial, t.fwdRowKv, t.fwdRowMask,
                t.fwdBits, p.heads(), p.kvHeads(), p.seqQ(), p.seqKv(), plan.fwdLists.numQBlocks(), (float) p.scale(),
                (float) p.softcap()};
        args = KernelCatalog.withSpans(args, plan.fwd, t.fwdSpans);
        if (KernelCatalog.forwardTakesKvMaps(plan.fwd)) {
            args = cuda.withTileMaps(args, KernelCatalog.forwardKvMap(p), "K and V", k, v);
        }
        cuda.launch(plan.fwd, args);
    }

    private void launchBackward(Plan plan, Tables t, DeviceBuffer q, DeviceBuffer k, DeviceBuffer v, DeviceBuffer o,
                                DeviceBuffer lse, DeviceBuffer dO, DeviceBuffer dsum, DeviceBuffer dqAcc, DeviceBuffer dq,
                                DeviceBuffer dk, DeviceBuffer dv) {
        AttentionProblem p = plan.p;
        long rows = (long) p.batch() * p.heads() * p.seqQ();
        dqAcc.fill32("dQ accumulator", 0);
        cuda.launch(KernelCatalog.backwardPre(p), o, dO, dsum, rows);
        Object[] args = {q, k, v, dO, lse, dsum, dqAcc, dk, dv, t.dkvParts, t.colLaunch, t.colParts, t.variantOf, t.colPtr,
                t.colPartial, t.colQ, t.colMask, t.bitsT, p.heads(), p.kvHeads(), p.seqQ(), p.seqKv(),
                plan.lists.numKvBlocks(), (float) p.scale(), (float) p.softcap()};
        if (KernelCatalog.backwardTakesQdoMaps(plan.bwd)) {
            args = cuda.withTileMaps(args, KernelCatalog.backwardQdoMap(p), "Q and dO", q, dO);
        }
        cuda.launch(plan.bwd, args);
        int splitItems = plan.lists.colSplitItems();
        if (splitItems > 0) {
            cuda.launch(KernelCatalog.backwardParts(p, plan.lists.blockKv(), splitItems), t.dkvParts, t.colParts,
                    t.colPartStarts, dk, dv, p.seqKv(), plan.lists.numKvBlocks(), p.headDim(), plan.lists.blockKv());
        }
        cuda.launch(KernelCatalog.backwardDq(p, plan.bwd), KernelCatalog.backwardDqArgs(p, plan.bwd, dqAcc, dq));
    }

    /**
     * What a timed run of this problem would need of a GPU with {@code deviceBytes} of memory, before the GPU is
     * opened (the run itself checks against the free memory when it starts): the flush scratch counted where it fits.
     */
    public static Estimate timedRunOnDevice(AttentionProblem p, TileLayout layout, Pass pass, long deviceBytes) {
        return SizeGuard.gpuRunOnDevice(p, layout, pass, flushBytes(p, layout, pass, deviceBytes), deviceBytes);
    }

    /**
     * The scratch a timed run fills before each timed launch sequence: {@value #FLUSH_BYTES} bytes, as triton's
     * do_bench and the peers' scripts fill before theirs (the fill empties the L2 cache, and the host's launches queue
     * behind it, so the events time the GPU's work alone), where the pass still fits in {@code availableBytes} with it;
     * else none, so that the largest problems run untouched by it.
     */
    static long flushBytes(AttentionProblem p, TileLayout layout, Pass pass, long availableBytes) {
        return SizeGuard.gpuRun(p, layout, pass, FLUSH_BYTES, availableBytes).fits() ? FLUSH_BYTES : 0;
    }

    /** A pass on random device-drawn inputs, timed with CUDA events (after the fill of {@link #flushBytes}). */
    private final class TimedRun implements PreparedRun {
        private final Plan plan;
        private final Pass pass;
        private final Tables tables;
        private final TimedSets sets;
        /** Sink logits and the dSink output when the run times sinks, else null. */
        private DeviceBuffer sinks;
        private DeviceBuffer dsink;

        TimedRun(Plan plan, Pass pass, long seed, boolean withSinks) {
            this.plan = plan;
            this.pass = pass;
            AttentionProblem p = plan.p;
            long free = cuda.freeBytes();
            long flush = flushBytes(p, plan.layout, pass, free);
            SizeGuard.gpuRun(p, plan.layout, pass, flush, free).orThrow();
            this.tables = uploadTables(plan);
            try {
                if (withSinks) {
                    sinks = cuda.uploadFloats("sinks", java.nio.FloatBuffer.wrap(AttentionInputs.randomSinks(p.heads(), seed)));
                    dsink = cuda.buffer("dSink", 4L * p.heads());
                }
                this.sets = new TimedSets(cuda, p, pass, seed, flush, set -> {
                    launchForward(plan, tables, set[TimedSets.Q], set[TimedSets.K], set[TimedSets.V], set[TimedSets.O],
                            set[TimedSets.LSE]);
                    applySinks(set[TimedSets.O], set[TimedSets.LSE]);
                });
            } catch (RuntimeException e) {
                closeOwn();
                throw e;
            }
        }

        @Override
        public String kernelName() {
            return pass == Pass.FWD ? plan.fwd.kernel() : plan.bwd.kernel();
        }

        @Override
        public double runTimedMs() {
            return sets.time(s -> {
                if (pass == Pass.FWD) {
                    launchForward(plan, tables, s[0], s[1], s[2], s[3], s[4]);
                    applySinks(s[3], s[4]);
                } else {
                    launchBackward(plan, tables, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]);
                    if (sinks != null) {
                        dsink.fill32("dSink", 0);
                        cuda.launch(KernelCatalog.sinkGrad(plan.p), s[4], s[6], sinks, dsink,
                                (long) plan.p.batch() * plan.p.heads() * plan.p.seqQ(), plan.p.heads(), plan.p.seqQ());
                    }
                }
            });
        }

        private void applySinks(DeviceBuffer o, DeviceBuffer lse) {
            if (sinks != null) {
                AttentionProblem p = plan.p;
                cuda.launch(KernelCatalog.sinkApply(p), o, lse, sinks, (long) p.batch() * p.heads() * p.seqQ(), p.heads(),
                        p.seqQ(), p.headDim());
            }
        }

        @Override
        public void close() {
            sets.close();
            closeOwn();
        }

        /** The sink buffers and the tables. */
        private void closeOwn() {
            if (sinks != null) {
                sinks.close();
            }
            if (dsink != null) {
                dsink.close();
            }
            tables.close();
        }
    }
}
