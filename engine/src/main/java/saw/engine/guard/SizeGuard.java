package saw.engine.guard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    private static final String COMPILE_ADVICE = "use larger blocks, shorter sequences or fewer distinct heads, "
            + "or give Java more memory (java -Xmx...)";

    private SizeGuard() {}

    /** Binding and compiling {@code config} at its sizes and block, against the free heap. */
    public static Estimate compile(MaskConfig config) {
        return compile(config.name(), config.mask(), config.dims(), config.block().q(), config.block().kv());
    }

    /** Binding and compiling a mask to blockQ x blockKv tiles, against the free heap. */
    public static Estimate compile(String name, Mask mask, Dims dims, int blockQ, int blockKv) {
        String work = "compiling " + name + " (" + dims.seqQ() + " x " + dims.seqKv() + ", batch " + dims.batch()
                + ", heads " + dims.heads() + ") to " + blockQ + "x" + blockKv + " tiles";
        return heap(work, compileBytes(mask, dims, blockQ, blockKv), COMPILE_ADVICE);
    }

    /** An upper bound on the heap that binding and compiling take, found without building anything. */
    public static long compileBytes(Mask mask, Dims dims, int blockQ, int blockKv) {
        return LayoutBound.compileBytes(mask, dims, blockQ, blockKv);
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
