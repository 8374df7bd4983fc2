package saw.engine.guard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;
import saw.engine.config.MaskConfig;
import saw.engine.format.LayoutFormat;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * Estimates, before the work starts, what compiling, exporting and running need, against what is free: work that
 * would not fit is refused with {@link Estimate#orThrow()} (a {@link TooLarge} naming the estimate and the limit)
 * instead of failing part way. Every estimate is an upper bound; the GUI shows {@link Estimate#sentence()} before a
 * run.
 */
public final class SizeGuard {
    /**
     * The most tiles a compile may classify one by one: about 2^36, ten minutes or more at the 70 to 150 million
     * tiles a second measured for simple masks on one core. More is refused rather than left to run for hours.
     */
    public static final long MAX_COMPILE_TILES = 1L << 36;
    private static final String RUN_ADVICE = "use fewer heads, a smaller batch or shorter sequences";
    private static final String COMPILE_ADVICE = "use larger blocks, shorter sequences or fewer distinct heads, "
            + "or give Java more memory (java -Xmx...)";

    private SizeGuard() {}

    /** Binding and compiling {@code config} at its sizes and block, against the free heap. */
    public static Estimate compile(MaskConfig config) {
        return compile(config.name(), config.mask(), config.dims(), config.block().q(), config.block().kv());
    }

    /** Binding and compiling a mask to blockQ x blockKv tiles, against the free heap. */
    public static Estimate compile(String name, Mask mask, Dims dims, int blockQ, int blockKv) {
        return heap(compileWork(name, dims, blockQ, blockKv), compileBytes(mask, dims, blockQ, blockKv), COMPILE_ADVICE);
    }

    /** Compiling {@code config}: its time, as tiles classified one by one, against {@link #MAX_COMPILE_TILES}. */
    public static Estimate compileTime(MaskConfig config) {
        return compileTime(config.name(), config.mask(), config.dims(), config.block().q(), config.block().kv());
    }

    /** Compiling a mask to blockQ x blockKv tiles: its time, against {@link #MAX_COMPILE_TILES}. */
    public static Estimate compileTime(String name, Mask mask, Dims dims, int blockQ, int blockKv) {
        return new Estimate(compileWork(name, dims, blockQ, blockKv), Estimate.Resource.COMPILE_TILES,
                compileTiles(mask, dims, blockQ, blockKv), MAX_COMPILE_TILES, "use larger blocks or shorter sequences");
    }

    /** An upper bound on the heap that binding and compiling take, found without building anything. */
    public static long compileBytes(Mask mask, Dims dims, int blockQ, int blockKv) {
        return LayoutBound.compileBytes(mask, dims, blockQ, blockKv);
    }

    /**
     * An upper bound on the tiles compiling classifies one by one (PARTIAL tiles and run boundaries; the rest is
     * decided a range at a time): compile time grows with it. Masks whose tiles are nearly all PARTIAL (a dilated
     * mask over 2^24 tokens with 16x16 tiles: 2^40 tiles) fit in little memory but take days to compile.
     */
    public static long compileTiles(Mask mask, Dims dims, int blockQ, int blockKv) {
        return LayoutBound.tilesClassified(mask, dims, blockQ, blockKv);
    }

    /**
     * Writing {@code layout} in {@code format} to a file in {@code folder}, against the disk space free there.
     *
     * @throws IOException when the free space cannot be read
     */
    public static Estimate export(LayoutFormat format, TileLayout layout, Path folder) throws IOException {
        long free = Files.getFileStore(folder).getUsableSpace();
        Dims d = layout.dims();
        String work = "the " + format.name() + " export of this " + d.seqQ() + " x " + d.seqKv() + " layout";
        return new Estimate(work, Estimate.Resource.DISK, format.estimateBytes(layout), free,
                "free some space in " + folder + " or write elsewhere");
    }

    /**
     * A pass on the GPU: its device tensors, the kernels' tile tables and {@code flushBytes} of scratch that a timed
     * run fills between runs to empty the L2 cache where there is room for it (0 for a verification run), against
     * {@code freeGpuBytes}, the free memory the driver reports.
     */
    public static Estimate gpuRun(AttentionProblem p, TileLayout layout, Pass pass, long flushBytes,
            long freeGpuBytes) {
        return gpuRun(p, layout, pass, flushBytes, Estimate.Resource.GPU, freeGpuBytes);
    }

    /** {@link #gpuRun} before the GPU is opened: against the device's total memory, {@code deviceBytes}. */
    public static Estimate gpuRunOnDevice(AttentionProblem p, TileLayout layout, Pass pass, long flushBytes,
            long deviceBytes) {
        return gpuRun(p, layout, pass, flushBytes, Estimate.Resource.GPU_TOTAL, deviceBytes);
    }

    private static Estimate gpuRun(AttentionProblem p, TileLayout layout, Pass pass, long flushBytes,
            Estimate.Resource memory, long available) {
        long tensors = Bytes.add(RunBytes.deviceTensors(p, pass), RunBytes.deviceTables(p, layout));
        long bytes = Bytes.add(tensors, flushBytes);
        String flush = flushBytes > 0
                ? ", with " + Bytes.human(flushBytes) + " that empties the L2 cache between runs" : "";
        return new Estimate("the GPU " + pass.label() + " pass on " + describe(p) + flush,
                memory, bytes, available, RUN_ADVICE + ", or free GPU memory that other processes hold");
    }

    /** Building the kernels' tile tables on the heap (every backend does, before a run). */
    public static Estimate tileTables(AttentionProblem p, TileLayout layout) {
        return heap("building the tile tables of " + describe(p) + " with " + layout.blockQ() + "x" + layout.blockKv() + " tiles",
                RunBytes.tileListsHeap(p, layout), RUN_ADVICE + " or larger tiles");
    }

    /** A pass on the CPU backend: fp32 inputs, working copies and outputs, and the tile tables, on the heap. */
    public static Estimate cpuRun(AttentionProblem p, TileLayout layout, Pass pass) {
        return heap("the CPU " + pass.label() + " pass on " + describe(p),
                Bytes.add(RunBytes.hostTensors(p, pass), RunBytes.tileListsHeap(p, layout)), RUN_ADVICE);
    }

    /** The fp64 reference that saw verify checks a run against, on the heap, on top of the inputs it is given. */
    public static Estimate reference(AttentionProblem p, boolean backward) {
        return heap("checking " + describe(p) + " against the fp64 reference",
                RunBytes.reference(p, backward, Runtime.getRuntime().availableProcessors()), RUN_ADVICE);
    }

    private static String compileWork(String name, Dims dims, int blockQ, int blockKv) {
        return "compiling " + name + " (" + dims.seqQ() + " x " + dims.seqKv() + ", batch " + dims.batch()
                + ", heads " + dims.heads() + ") to " + blockQ + "x" + blockKv + " tiles";
    }

    private static String describe(AttentionProblem p) {
        return "B=" + p.batch() + " H=" + p.heads() + " Hkv=" + p.kvHeads() + " Sq=" + p.seqQ() + " Skv=" + p.seqKv()
                + " D=" + p.headDim() + " " + p.dtype().label();
    }

    /**
     * {@code bytes} of heap for {@code work}, against what is free now. When it seems not to fit, garbage is
     * collected once and the free heap measured again, so that garbage left by earlier work does not refuse it.
     */
    public static Estimate heap(String work, long bytes, String advice) {
        long free = heapFree();
        if (bytes > free) {
            System.gc();
            free = heapFree();
        }
        return new Estimate(work, Estimate.Resource.HEAP, bytes, free, advice);
    }

    /** The heap that can still be allocated: the most the JVM may use less what is in use now. */
    public static long heapFree() {
        Runtime rt = Runtime.getRuntime();
        return Math.max(0, rt.maxMemory() - (rt.totalMemory() - rt.freeMemory()));
    }
}
