package saw.engine.gpu;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.attention.TileLists;

/**
 * The kernels in the fatbin and how to launch them: names, launch shapes and shared-memory sizes, mirroring the
 * template parameters in engine/src/main/cuda. Validation of what the kernels support lives here too.
 */
final class KernelCatalog {
    static final int[] HEAD_DIMS = {64, 128};
    /**
     * The head dim the mma.sync kernels run at q64 tiles, forward and backward (attention_fwd.cu, attention_bwd.cu); on
     * Hopper at 64x64 also the wgmma ones behind their switches (attention_fwd_wgmma_d256.cu, attention_bwd_wgmma_d256.cu,
     * whose 64-row forward runs D = 64 and 128 at 64x64 too).
     */
    static final int WIDE_HEAD_DIM = 256;
    static final int[] TILE_Q = {64, 128};
    static final int[] TILE_KV = {32, 64, 128};
    /** q rows per backward step (BwdSplit::QS in attention_bwd.cu; the Hopper backward's step too). */
    static final int BWD_Q_STEP = 64;
    /** q rows per step of the head dim 256 backward, whose CTAs each add half the outputs' columns (BwdSplit). */
    static final int WIDE_BWD_Q_STEP = 32;
    /** CTAs per kv tile of the head dim 256 backward: one per half of the columns of dK, dV and dQ. */
    static final int WIDE_BWD_SPLIT = 2;
    /** Columns of the backward's dS^T tile in shared memory (BwdSplit::DS_COLS: the swizzle needs 64). */
    static final int BWD_DS_COLS = 64;
    static final int PRE_THREADS = 256;
    static final int ELEMENTWISE_THREADS = 256;

    private KernelCatalog() {}

    /** Null when the kernels can run the problem with these tiles, else a sentence saying what is not supported. */
    static String unsupported(AttentionProblem p, KernelTiles tiles) {
        if (p.headDim() == WIDE_HEAD_DIM) {
            return tiles.blockQ() == 64 && (tiles.blockKv() == 32 || tiles.blockKv() == 64) ? null
                    : "tile " + tiles + " is not supported by the GPU kernels at head dim 256 (64x32 or 64x64, forward and backward)";
        }
        if (p.headDim() != 64 && p.headDim() != 128) {
            return "head dim " + p.headDim() + " is not supported by the GPU kernels (64, 128 or 256)";
        }
        if (!contains(TILE_Q, tiles.blockQ()) || !contains(TILE_KV, tiles.blockKv())) {
            return "tile " + tiles + " is not supported by the GPU kernels (q 64 or 128, kv 32, 64 or 128)";
        }
        return null;
    }


    /**
     * The tile that ran fastest for this pass on a GPU of this compute capability major (docs/benchmarks.md): 128x128
     * for both passes on Hopper (the wgmma kernels' tile), else 128x64 forward and 128x128 backward (mma.sync).
     * Callers that choose the layout's block for a pass start here.
     */
    static KernelTiles recommended(Pass pass, int major) {
        return pass == Pass.FWD && major != WGMMA_MAJOR ? new KernelTiles(128, 64) : new KernelTiles(128, 128);
    }

    static String forwardName(DType t, int d, KernelTiles tiles) {
        return "fwd_" + t.label() + "_d" + d + "_q" + tiles.blockQ() + "_kv" + tiles.blockKv();
    }

    static String backwardName(DType t, int d, KernelTiles tiles, boolean softcap) {
        return "bwd_" + t.label() + "_d" + d + "_q" + tiles.blockQ() + "_kv" + tiles.blockKv() + (softcap ? "_softcap" : "");
    }

    /** Warps of a forward CTA: two m16 blocks per warp for 128-row tiles with kv <= 64 (fwd_warps in the .cu). */
    static int forwardWarps(KernelTiles tiles) {
        return tiles.blockQ() == 128 && tiles.blockKv() <= 64 ? 4 : tiles.blockQ() / 16;
    }

    static LaunchShape forward(AttentionProblem p, KernelTiles tiles, int numQBlocks) {
        int d = p.headDim();
        int smem = (tiles.blockQ() * d + 4 * tiles.blockKv() * d) * 2;
        return new LaunchShape(forwardName(p.dtype(), d, tiles), (long) p.batch() * p.heads() * numQBlocks,
                forwardWarps(tiles) * 32, smem);
    }

    /**
     * The tile of the Hopper families at head dims 64 and 128 (attention_fwd_wgmma.cu, attention_bwd_wgmma.cu): 128
     * q rows in two consumer warpgroups, 128 kv rows.
     */
    static final KernelTiles WGMMA_TILES = new KernelTiles(128, 128);
    static final int WGMMA_STAGES = 3;
    /**
     * Threads of a CTA of the warp-specialised Hopper kernels at that tile, forward and backward (WS_THREADS,
     * WBS_THREADS): a producer warpgroup and two consumer warpgroups.
     */
    static final int WGMMA_WS_THREADS = 384;
    /** Compute capability major of the sm_90a image that holds the wgmma kernels' code. */
    static final int WGMMA_MAJOR = 9;

    static String forwardWgmmaName(DType t, int d, ForwardKernel family) {
        return family.kernelPrefix() + t.label() + "_d" + d + "_q128_kv128";
    }

    /** Whether the wgmma kernels (forward and backward) run this problem with these tiles on a GPU of this compute capability. */
    static boolean wgmmaFits(AttentionProblem p, KernelTiles tiles, int major) {
        return major == WGMMA_MAJOR && tiles.equals(WGMMA_TILES) && contains(HEAD_DIMS, p.headDim());
    }

    /**
     * Q buffers per consumer warpgroup of the persistent forward (WS_Q_BUFFERS): two at D = 64 with turns
     * ({@link ForwardKernel#WGMMA_PINGPONG}; a second, 1024-aligned after the barriers), one otherwise.
     */
    static int persistentQBuffers(int headDim, ForwardKernel family) {
        return headDim == 64 && family == ForwardKernel.WGMMA_PINGPONG ? 2 : 1;
    }

    /** Ints of a row ring entry of the persistent forward (RowRef: slot, item, list start, count, PARTIAL count). */
    static final int ROW_REF_INTS = 5;

    /** Bytes of one K stage's row spans in the persistent forward (TileLists#rowSpans: two rows a word). */
    static final int SPAN_STAGE_BYTES = WGMMA_TILES.blockQ() / 2 * 4;

    /**
     * How the persistent forward masks PARTIAL tiles: by their row spans where every tile of the layout has them
     * (the default: its {@code _spans} kernels), or by their bit tiles always. Chosen with
     * {@code -Dsaw.kernel.partial=spans|bits} or {@code SAW_KERNEL_PARTIAL}; the other kernels read bit tiles.
     */
    enum PartialMasks {
        SPANS("spans"),
        BITS("bits");

        private final String label;

        PartialMasks(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }

        /** @throws IllegalArgumentException naming the setting when its value is neither label */
        static PartialMasks configured() {
            return KernelSetting.configured(values(), PartialMasks::label, "saw.kernel.partial", "SAW_KERNEL_PARTIAL",
                    SPANS, "PARTIAL-tile mask");
        }
    }

    /** Whether the persistent forward masks the PARTIAL tiles of {@code lists} by their row spans. */
    static boolean rowSpans(TileLists lists) {
        return lists.hasRowSpans() && PartialMasks.configured() == PartialMasks.SPANS;
    }

    /**
     * The forward's arguments {@code args} as {@code fwd}'s kernel takes them: the persistent kernels take the row spans
     * after them ({@code spans}, the layout's row spans on the device, for the {@code _spans} kernels, a null pointer
     * for the others, which read bit tiles); the other forwards take {@code args} as they are.
     *
     * @throws IllegalStateException when a {@code _spans} kernel gets no spans
     */
    static Object[] withSpans(Object[] args, LaunchShape fwd, DeviceBuffer spans) {
        if (!fwd.persistent()) {
            return args;
        }
        boolean reads = readsSpans(fwd);
        if (reads && spans == null) {
            throw new IllegalStateException(fwd.kernel() + " needs the layout's row spans, and it has none");
        }
        Object[] all = Arrays.copyOf(args, args.length + 1);
        all[args.length] = reads ? spans : (Object) 0L;
        return all;
    }

    /** Whether the forward kernel {@code fwd} masks PARTIAL tiles by row spans (one of the {@code _spans} kernels). */
    static boolean readsSpans(LaunchShape fwd) {
        return fwd.kernel().endsWith(SPANS_SUFFIX);
    }

    private static final String SPANS_SUFFIX = "_spans";

    /**
     * Q and three K and V stages in the 128-byte swizzle (WG_STAGES), plus 1024 bytes to align them to 1024, four
     * mbarriers per stage, the two warpgroups' Q full / empty ones per Q buffer, the row ring's two entries (a row read
     * from the tables: {@link #ROW_REF_INTS} ints) with their full / empty mbarriers, with {@code rowSpans} (its
     * {@code _spans} kernels) a barrier per stage and each K stage's row spans ({@link #SPAN_STAGE_BYTES}, 16-byte
     * aligned), and with two Q buffers the second one, 1024-aligned after them. Both Hopper families are persistent
     * (attention_fwd_wgmma_ws: at most one CTA per SM takes rows from a queue).
     */
    static LaunchShape forwardWgmma(AttentionProblem p, int numQBlocks, ForwardKernel family, boolean rowSpans) {
        int d = p.headDim();
        int qBuffers = persistentQBuffers(d, family);
        int barriers = (4 * WGMMA_STAGES + 4 * qBuffers + 4) * 8 + 2 * ROW_REF_INTS * 4;
        int spanBytes = rowSpans ? WGMMA_STAGES * 8 + 16 + WGMMA_STAGES * SPAN_STAGE_BYTES : 0;
        int secondQ = qBuffers == 2 ? 1024 + WGMMA_TILES.blockQ() * d * 2 : 0;
        int smem = (WGMMA_TILES.blockQ() * d + 2 * WGMMA_STAGES * WGMMA_TILES.blockKv() * d) * 2 + 1024 + barriers
                + spanBytes + secondQ;
        return new LaunchShape(forwardWgmmaName(p.dtype(), d, family) + (rowSpans ? SPANS_SUFFIX : ""),
                (long) p.batch() * p.heads() * numQBlocks, WGMMA_WS_THREADS, smem, true);
    }

    /** The forward launch for the preferred family, or the mma.sync one where the Hopper forward does not fit. */
    static LaunchShape forwardFor(AttentionProblem p, KernelTiles tiles, int numQBlocks, ForwardKernel kernel, int major,
            boolean rowSpans) {
        if (q64WgmmaFits(p, tiles, kernel, major)) {
            return forwardQ64Wgmma(p, numQBlocks, kernel);
        }
        return kernel != ForwardKernel.MMA && wgmmaFits(p, tiles, major) ? forwardWgmma(p, numQBlocks, kernel, rowSpans)
                : forward(p, tiles, numQBlocks);
    }

    /** The 64-row Hopper forward's tile (attention_fwd_wgmma_d256.cu): the mma.sync D = 256 layout's 64x64. */
    static final KernelTiles Q64_WGMMA_TILES = new KernelTiles(64, 64);

    /**
     * Whether the 64-row Hopper forward runs this problem: compute capability 9.0, the 64x64 layout, head dim 64, 128
     * or 256 (there unless the head dim 256 switch says {@code mma}), and a Hopper family
     * ({@link ForwardKernel#WGMMA_WS}: one consumer warpgroup; {@link ForwardKernel#WGMMA_PINGPONG}: two taking the kv
     * tiles in turn). {@link ForwardKernel#MMA} runs the mma.sync kernel at 64x64.
     */
    static boolean q64WgmmaFits(AttentionProblem p, KernelTiles tiles, ForwardKernel kernel, int major) {
        int d = p.headDim();
        return major == WGMMA_MAJOR && tiles.equals(Q64_WGMMA_TILES) && kernel != ForwardKernel.MMA
                && (contains(HEAD_DIMS, d) || d == WIDE_HEAD_DIM && WIDE_FORWARD.configured() != WideFamily.MMA);
    }

    /**
     * Whether the head dim 256 Hopper forward with 128-row CTAs runs this problem: head dim 256 where
     * {@link #q64WgmmaFits} holds and the switch says {@code wgmma-q128}. It reads its own lists, the layout's mask
     * compiled at {@link #WIDE_Q128_TILES} (GpuBackend builds them); callers that hold only the 64x64 lists (a ring's
     * parts) run the 64-row kernel through {@link #forwardFor}.
     */
    static boolean wideQ128Fits(AttentionProblem p, KernelTiles tiles, ForwardKernel kernel, int major) {
        return p.headDim() == WIDE_HEAD_DIM && q64WgmmaFits(p, tiles, kernel, major)
                && WIDE_FORWARD.configured() == WideFamily.WGMMA_Q128;
    }

    /** Which kernel family head dim 256 runs on Hopper, as one of {@link WideSwitch}'s settings picks it. */
    enum WideFamily {
        MMA("mma"),
        WGMMA("wgmma"),
        /** The forward only: 128-row CTAs over the mask compiled at 128x64 (attention_fwd_wgmma_d256_q128). */
        WGMMA_Q128("wgmma-q128");

        private final String label;

        WideFamily(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    /**
     * A system property or environment variable (the property wins) that picks one of {@code families},
     * {@code fallback} when neither is set.
     */
    record WideSwitch(String property, String env, String what, List<WideFamily> families, WideFamily fallback) {
        WideSwitch {
            families = List.copyOf(families);
        }

        /** @throws IllegalArgumentException naming the setting when its value is none of the families' labels */
        WideFamily configured() {
            return KernelSetting.configured(families.toArray(new WideFamily[0]), WideFamily::label, property, env,
                    fallback, what);
        }
    }

    /**
     * Which forward head dim 256 runs on Hopper: the Hopper forward with 128-row CTAs (the default, wgmma-q128: verified
     * on the H200, 650 against the 64-row CTAs' 474 TFLOP/s on causal 8K, bench/gpu/d256-fwd128.sh), with 64-row
     * CTAs (wgmma: 474 against the mma.sync family's best 217, bench/gpu/d256-wgmma.sh; a ring's parts run it too, having
     * only the 64x64 lists) or the mma.sync one: {@code -Dsaw.kernel.fwd256=wgmma-q128|wgmma|mma} or
     * {@code SAW_KERNEL_FWD256}.
     */
    static final WideSwitch WIDE_FORWARD = new WideSwitch("saw.kernel.fwd256", "SAW_KERNEL_FWD256", "head dim 256 forward",
            List.of(WideFamily.MMA, WideFamily.WGMMA, WideFamily.WGMMA_Q128), WideFamily.WGMMA_Q128);

    /**
     * Whether head dim 256 runs the Hopper backward on Hopper (the default, wgmma: verified on the H200 and 360 against
     * the mma.sync family's 103 TFLOP/s on causal 8K, docs/benchmarks.md) or the mma.sync one:
     * {@code -Dsaw.kernel.bwd256=wgmma|mma} or {@code SAW_KERNEL_BWD256}.
     */
    static final WideSwitch WIDE_BACKWARD = new WideSwitch("saw.kernel.bwd256", "SAW_KERNEL_BWD256", "head dim 256 backward",
            List.of(WideFamily.MMA, WideFamily.WGMMA), WideFamily.WGMMA);

    static String forwardQ64WgmmaName(DType t, int d, ForwardKernel family) {
        return family.kernelPrefix() + t.label() + "_d" + d + "_q64_kv64";
    }

    /** A producer warpgroup and one ({@link ForwardKernel#WGMMA_WS}) or two consumer warpgroups. */
    static int q64WgmmaThreads(ForwardKernel family) {
        return family == ForwardKernel.WGMMA_PINGPONG ? 384 : 256;
    }

    /**
     * K/V stages of the 64-row Hopper forward (Q64Shape::STAGES): three at D = 256; at D = 64 and 128 four with two
     * consumer warpgroups, two with one (whose CTAs run two per SM).
     */
    static int q64WgmmaStages(int d, ForwardKernel family) {
        return d == WIDE_HEAD_DIM ? 3 : family == ForwardKernel.WGMMA_PINGPONG ? 4 : 2;
    }

    /** Q and the K and V stages in the 128-byte swizzle, 1024 bytes to align them, a Q barrier and four per stage. */
    static LaunchShape forwardQ64Wgmma(AttentionProblem p, int numQBlocks, ForwardKernel family) {
        int d = p.headDim();
        int side = Q64_WGMMA_TILES.blockQ();
        int stages = q64WgmmaStages(d, family);
        int smem = (side * d + 2 * stages * side * d) * 2 + 1024 + (1 + 4 * stages) * 8;
        return new LaunchShape(forwardQ64WgmmaName(p.dtype(), d, family), (long) p.batch() * p.heads() * numQBlocks,
                q64WgmmaThreads(family), smem);
    }

    /** The tile of the head dim 256 Hopper forward with 128-row CTAs: two consumer warpgroups of 64 rows, 64-row kv tiles. */
    static final KernelTiles WIDE_Q128_TILES = new KernelTiles(128, 64);
    /** K/V stages of that forward (W256_WIDE_STAGES): Q is twice as large, a third stage does not fit. */
    static final int WIDE_Q128_STAGES = 2;

    static String forwardWideQ128Name(DType t, ForwardKernel family) {
        return family.kernelPrefix() + t.label() + "_d" + WIDE_HEAD_DIM + "_q128_kv64";
    }

    /**
     * One CTA per 128-row q tile, head and batch entry ({@code numQBlocks} of the 128x64 lists); a producer and two
     * consumer warpgroups for both families ({@link ForwardKernel#WGMMA_PINGPONG} adds the consumers' turns). Q (128 x
     * 256) and two stages of K and V (64 x 256) in the 128-byte swizzle, 1024 bytes to align them, four barriers per stage.
     */
    static LaunchShape forwardWideQ128(AttentionProblem p, int numQBlocks, ForwardKernel family) {
        int d = WIDE_HEAD_DIM;
        int smem = (WIDE_Q128_TILES.blockQ() * d + 2 * WIDE_Q128_STAGES * WIDE_Q128_TILES.blockKv() * d) * 2 + 1024
                + 4 * WIDE_Q128_STAGES * 8;
        return new LaunchShape(forwardWideQ128Name(p.dtype(), family), (long) p.batch() * p.heads() * numQBlocks, 384, smem);
    }

    /**
     * Whether the forward kernel {@code fwd} takes the tensor maps of K and V after the forward's arguments (its
     * producer loads K and V tiles with the tensor memory accelerator): the 128-row head dim 256 forwards.
     */
    static boolean forwardTakesKvMaps(LaunchShape fwd) {
        return fwd.kernel().contains("_d" + WIDE_HEAD_DIM + "_q128_");
    }

    /** The tensor map those kernels read K or V through: [batch x kv heads][kv rows][head dim], boxes of a 64-row tile. */
    static TileMap forwardKvMap(AttentionProblem p) {
        return TileMap.ofHeads(p.dtype() == DType.BF16, (long) p.batch() * p.kvHeads(), p.seqKv(), p.headDim(),
                WIDE_Q128_TILES.blockKv());
    }

    /**
     * Whether the backward kernel {@code bwd} takes the tensor maps of Q and dO after the backward's arguments (it loads
     * their steps with the tensor memory accelerator): the head dim 256 Hopper backward.
     */
    static boolean backwardTakesQdoMaps(LaunchShape bwd) {
        return isBackwardWideWgmma(bwd);
    }

    /** Whether {@code backward} launches the head dim 256 Hopper backward ({@link #backwardWideWgmmaName}). */
    private static boolean isBackwardWideWgmma(LaunchShape backward) {
        String k = backward.kernel();
        for (DType t : DType.values()) {
            if (k.equals(backwardWideWgmmaName(t, false)) || k.equals(backwardWideWgmmaName(t, true))) {
                return true;
            }
        }
        return false;
    }

    /** The tensor map that kernel reads Q or dO through: [batch x heads][q rows][head dim], boxes of a 64-row step. */
    static TileMap backwardQdoMap(AttentionProblem p) {
        return TileMap.ofHeads(p.dtype() == DType.BF16, (long) p.batch() * p.heads(), p.seqQ(), p.headDim(),
                Q64_WGMMA_TILES.blockQ());
    }

    /** CTAs per kv tile of the mma.sync backward: 2 at head dim 256 (one per half of the output columns), else 1. */
    static int backwardSplit(int headDim) {
        return headDim == WIDE_HEAD_DIM ? WIDE_BWD_SPLIT : 1;
    }

    /** q rows per step of the mma.sync backward at this head dim. */
    static int backwardQStep(int headDim) {
        return headDim == WIDE_HEAD_DIM ? WIDE_BWD_Q_STEP : BWD_Q_STEP;
    }

    /**
     * K and V tiles, two stages of the Q and dO steps, the dS^T tile, two stages of LSE and Dsum (attention_bwd.cu);
     * {@link #backwardSplit} CTAs per (kv tile, kv head, batch), neighbours in the grid.
     */
    static LaunchShape backward(AttentionProblem p, KernelTiles tiles, int numKvBlocks) {
        int d = p.headDim();
        int bkv = tiles.blockKv();
        int qs = backwardQStep(d);
        int smem = (2 * bkv * d + 4 * qs * d + bkv * BWD_DS_COLS) * 2 + 4 * qs * 4;
        return new LaunchShape(backwardName(p.dtype(), d, tiles, p.softcap() > 0),
                (long) p.batch() * p.kvHeads() * numKvBlocks * backwardSplit(d), bkv / 16 * 32, smem);
    }

    /** Ints of a column ring entry of the persistent backward (ColumnRef: slot, launch entry, q steps). */
    static final int COLUMN_REF_INTS = 3;

    /** Q/dO stages of the warp-specialised backward's ring (WBS_STAGES in attention_bwd_wgmma.cu). */
    static final int WGMMA_WS_BWD_STAGES = 3;

    static String backwardWgmmaName(DType t, int d, boolean softcap, BackwardKernel family) {
        return family.kernelPrefix() + t.label() + "_d" + d + "_q128_kv128" + (softcap ? "_softcap" : "");
    }

    /**
     * {@link BackwardKernel#WGMMA_WS} (attention_bwd_wgmma.cu): in the 128-byte swizzle, K and V tiles, a ring of
     * {@link #WGMMA_WS_BWD_STAGES} Q and dO steps and two dS^T tiles, plus 1024 bytes to align them to 1024; a full
     * and an empty mbarrier per step (its consumers keep LSE and Dsum in registers), a step's fp32 dQ tile (q step x
     * 128 columns: one tile, or two of 64 at D = 64), two "dQ empty" mbarriers and two counters of the warps that
     * stored their share of the tile (one each per warpgroup at D = 64), and, being persistent (at most one CTA per
     * SM takes the columns from a work queue), a "kv empty" mbarrier and a two-entry column ring.
     */
    static LaunchShape backwardWgmma(AttentionProblem p, int numKvBlocks) {
        int d = p.headDim();
        int bkv = WGMMA_TILES.blockKv();
        int steps = WGMMA_WS_BWD_STAGES;
        int dsTiles = 2;
        // and two counters of warps that stored dQ, the "kv empty" mbarrier, the column ring (two entries of
        // COLUMN_REF_INTS ints, a full and an empty mbarrier each)
        int barriers = (2 * steps + 2) * 8 + 2 * 4 + 8 + 4 * 8 + 2 * COLUMN_REF_INTS * 4;
        int dq = BWD_Q_STEP * 128 * 4;  // one 128-column fp32 tile, or two of 64 at D = 64
        int smem = (2 * bkv * d + 2 * steps * BWD_Q_STEP * d + dsTiles * bkv * BWD_Q_STEP) * 2 + dq + barriers + 1024;
        return new LaunchShape(backwardWgmmaName(p.dtype(), d, p.softcap() > 0, BackwardKernel.WGMMA_WS),
                (long) p.batch() * p.kvHeads() * numKvBlocks, WGMMA_WS_THREADS, smem, true);
    }

    /** The backward launch for the preferred family, or the mma.sync one where the Hopper backward does not fit. */
    static LaunchShape backwardFor(AttentionProblem p, KernelTiles tiles, int numKvBlocks, BackwardKernel kernel, int major) {
        if (wideBackwardWgmmaFits(p, tiles, kernel, major)) {
            return backwardWideWgmma(p, numKvBlocks);
        }
        return kernel != BackwardKernel.MMA && wgmmaFits(p, tiles, major) ? backwardWgmma(p, numKvBlocks)
                : backward(p, tiles, numKvBlocks);
    }

    /**
     * Whether the head dim 256 Hopper backward (attention_bwd_wgmma_d256.cu) runs this problem: compute capability
     * 9.0, the 64x64 layout, the Hopper backward family preferred ({@link BackwardKernel#WGMMA_WS}, which runs this
     * kernel at D = 256), and the switch on. Elsewhere the mma.sync D = 256 backward runs (two CTAs per kv tile).
     */
    static boolean wideBackwardWgmmaFits(AttentionProblem p, KernelTiles tiles, BackwardKernel kernel, int major) {
        return major == WGMMA_MAJOR && p.headDim() == WIDE_HEAD_DIM && tiles.equals(Q64_WGMMA_TILES)
                && kernel != BackwardKernel.MMA && WIDE_BACKWARD.configured() == WideFamily.WGMMA;
    }

    static String backwardWideWgmmaName(DType t, boolean softcap) {
        return "bwd_wgmma_" + t.label() + "_d" + WIDE_HEAD_DIM + "_q64_kv64" + (softcap ? "_softcap" : "");
    }

    /** Threads of the head dim 256 Hopper backward: two warpgroups on one 64-row kv tile (WB256_THREADS). */
    static final int WIDE_WGMMA_BWD_THREADS = 256;

    /**
     * One CTA per (kv tile, kv head, batch). In the 128-byte swizzle: K and V (64 x 256 each), two stages of the Q
     * and dO steps (64 x 256; each stage also holds a step's fp32 dQ tile once its products are done), the P^T and
     * dS^T tiles (64 x 64); then the S^T / dP^T halves exchanged in fp32 (64 x 64), two stages of LSE and Dsum, an
     * mbarrier per stage (its Q and dO step has landed) and the count of warps that stored their rows of a dQ tile,
     * and 1024 bytes to align the panels. The kernel takes the tensor maps of Q and dO ({@link #backwardTakesQdoMaps}).
     */
    static LaunchShape backwardWideWgmma(AttentionProblem p, int numKvBlocks) {
        int d = WIDE_HEAD_DIM;
        int side = Q64_WGMMA_TILES.blockKv();
        int smem = (2 * side * d + 4 * side * d + 2 * side * side) * 2 + side * side * 4 + 4 * side * 4 + 2 * 8 + 4 + 1024;
        return new LaunchShape(backwardWideWgmmaName(p.dtype(), p.softcap() > 0),
                (long) p.batch() * p.kvHeads() * numKvBlocks, WIDE_WGMMA_BWD_THREADS, smem);
    }

    /**
     * {@code whole}, a backward over every column of {@code lists}, launched over its launch entries instead
     * ({@link TileLists#colLaunch}: split items' parts, then the other items), with as many CTAs per entry.
     */
    static LaunchShape backwardLaunch(LaunchShape whole, AttentionProblem p, TileLists lists) {
        long ctasPerItem = whole.grid() / ((long) p.batch() * p.kvHeads() * lists.numKvBlocks());
        return new LaunchShape(whole.kernel(), ctasPerItem * lists.colLaunch().length, whole.block(), whole.sharedBytes(),
                whole.persistent());
    }

    /** Adds the split backward items' parts: 1024 elements of one item's kv tile (dK and dV) per CTA of 256 threads. */
    static LaunchShape backwardParts(AttentionProblem p, int blockKv, int splitItems) {
        long chunks = ((long) blockKv * p.headDim() + 1023) / 1024;
        return new LaunchShape("bwd_parts_" + p.dtype().label(), splitItems * chunks, 256, 0);
    }

    /** Dsum = rowsum(dO * O): one warp per row. */
    static LaunchShape backwardPre(AttentionProblem p) {
        long rows = (long) p.batch() * p.heads() * p.seqQ();
        int rowsPerBlock = PRE_THREADS / 32;
        return new LaunchShape("bwd_pre_" + p.dtype().label() + "_d" + p.headDim(), (rows + rowsPerBlock - 1) / rowsPerBlock,
                PRE_THREADS, 0);
    }

    /** dQ from the fp32 accumulator: two elements per thread. */
    static LaunchShape backwardDq(AttentionProblem p) {
        return toElements(p.dtype(), p.qElements());
    }

    /** bwd_dq_* over {@code elements} fp32 values, two a thread: scaled and converted to the element type. */
    static LaunchShape toElements(DType dtype, long elements) {
        return conversion("bwd_dq_", dtype, elements, 2);
    }

    /**
     * dQ from the accumulator that {@code backward} filled: the Hopper backwards that add dQ tiles keep each row's
     * columns in the tile's order ({@code bwd_dq_perm_*} restores them; it takes Sq and D after the scale).
     */
    static LaunchShape backwardDq(AttentionProblem p, LaunchShape backward) {
        // bwd_dq_perm_*: a thread per 16 values of a row (head dims are multiples of 64)
        return permutesDq(backward) ? conversion("bwd_dq_perm_", p.dtype(), p.qElements(), 16) : backwardDq(p);
    }

    /** The arguments of {@link #backwardDq(AttentionProblem, LaunchShape)}'s launch from accumulator acc into dq. */
    static Object[] backwardDqArgs(AttentionProblem p, LaunchShape backward, Object acc, Object dq) {
        return permutesDq(backward)
                ? new Object[] {acc, dq, p.qElements(), (float) p.scale(), p.seqQ(), p.headDim()}
                : new Object[] {acc, dq, p.qElements(), (float) p.scale()};
    }

    /**
     * Whether this backward launch writes dQ's accumulator with its rows' columns permuted (see backwardDq): the
     * warp-specialised Hopper backward and the head dim 256 Hopper backward, which both add dQ tiles with bulk copies.
     */
    static boolean permutesDq(LaunchShape backward) {
        return backward.kernel().startsWith(BackwardKernel.WGMMA_WS.kernelPrefix()) || isBackwardWideWgmma(backward);
    }

    /**
     * A conversion of {@code elements} fp32 accumulator values to the element type, {@code perThread} values a thread
     * (dQ here; the NSA backward's dK and dV too).
     */
    static LaunchShape conversion(String prefix, DType dtype, long elements, int perThread) {
        long threads = elements / perThread;
        return new LaunchShape(prefix + dtype.label(), (threads + ELEMENTWISE_THREADS - 1) / ELEMENTWISE_THREADS,
                ELEMENTWISE_THREADS, 0);
    }

    /** Sink logits into O and LSE after any forward (sinks.cu): one warp per query row. */
    static LaunchShape sinkApply(AttentionProblem p) {
        long rows = (long) p.batch() * p.heads() * p.seqQ();
        int rowsPerBlock = PRE_THREADS / 32;
        return new LaunchShape("sink_apply_" + p.dtype().label(), (rows + rowsPerBlock - 1) / rowsPerBlock, PRE_THREADS, 0);
    }

    /** dSink from LSE and Dsum (sinks.cu): one thread per query row. */
    static LaunchShape sinkGrad(AttentionProblem p) {
        long rows = (long) p.batch() * p.heads() * p.seqQ();
        return new LaunchShape("sink_grad", (rows + ELEMENTWISE_THREADS - 1) / ELEMENTWISE_THREADS, ELEMENTWISE_THREADS, 0);
    }

    static LaunchShape fill(DType t, long elements) {
        long pairs = (elements + 1) / 2;
        return new LaunchShape("fill_normal_" + t.label(), (pairs + ELEMENTWISE_THREADS - 1) / ELEMENTWISE_THREADS,
                ELEMENTWISE_THREADS, 0);
    }

    /** Every kernel the fatbin should hold, for {@code saw env} and the startup check. */
    static List<String> allNames() {
        List<String> names = new ArrayList<>();
        for (DType t : DType.values()) {
            for (int d : HEAD_DIMS) {
                for (int bq : TILE_Q) {
                    for (int bkv : TILE_KV) {
                        KernelTiles tiles = new KernelTiles(bq, bkv);
                        names.add(forwardName(t, d, tiles));
                        names.add(backwardName(t, d, tiles, false));
                        names.add(backwardName(t, d, tiles, true));
                    }
                }
                for (ForwardKernel family : ForwardKernel.hopper()) {
                    names.add(forwardWgmmaName(t, d, family));
                    names.add(forwardWgmmaName(t, d, family) + SPANS_SUFFIX);
                }
                names.add(forwardQ64WgmmaName(t, d, ForwardKernel.WGMMA_WS));
                names.add(forwardQ64WgmmaName(t, d, ForwardKernel.WGMMA_PINGPONG));
                names.add("bwd_pre_" + t.label() + "_d" + d);
                for (BackwardKernel family : BackwardKernel.hopper()) {
                    names.add(backwardWgmmaName(t, d, false, family));
                    names.add(backwardWgmmaName(t, d, true, family));
                }
            }
            for (int bkv : new int[] {32, 64}) {
                KernelTiles tiles = new KernelTiles(64, bkv);
                names.add(forwardName(t, WIDE_HEAD_DIM, tiles));
                names.add(backwardName(t, WIDE_HEAD_DIM, tiles, false));
                names.add(backwardName(t, WIDE_HEAD_DIM, tiles, true));
            }
            names.add(forwardQ64WgmmaName(t, WIDE_HEAD_DIM, ForwardKernel.WGMMA_WS));
            names.add(forwardQ64WgmmaName(t, WIDE_HEAD_DIM, ForwardKernel.WGMMA_PINGPONG));
            names.add(forwardWideQ128Name(t, ForwardKernel.WGMMA_WS));
            names.add(forwardWideQ128Name(t, ForwardKernel.WGMMA_PINGPONG));
            names.add(backwardWideWgmmaName(t, false));
            names.add(backwardWideWgmmaName(t, true));
            names.add("bwd_pre_" + t.label() + "_d" + WIDE_HEAD_DIM);
            names.add("bwd_dq_" + t.label());
            names.add("bwd_dq_perm_" + t.label());
            names.add("bwd_parts_" + t.label());
            names.add("sink_apply_" + t.label());
            names.add("fill_normal_" + t.label());
        }
        names.add("sink_grad");
        return names;
    }

    /**
     * Which kernel families run where, with the settings that choose them, e.g. for {@code saw env}.
     *
     * @throws IllegalArgumentException naming the setting when one names no family
     */
    static String families() {
        return "compute capability " + WGMMA_MAJOR + ".0 with " + WGMMA_TILES + " tiles and head dim 64 or 128: forward "
                + ForwardKernel.configured().label() + ", backward " + BackwardKernel.configured().label()
                + "; with " + Q64_WGMMA_TILES + " tiles and head dim 64 or 128: forward wgmma-ws or wgmma-pp with 64-row CTAs"
                + " as the forward family says (mma: mma.sync), backward mma.sync"
                + "; with " + Q64_WGMMA_TILES + " tiles and head dim 256: forward " + WIDE_FORWARD.configured().label()
                + " (-D" + WIDE_FORWARD.property() + " or " + WIDE_FORWARD.env() + "; wgmma runs wgmma-ws or wgmma-pp, wgmma-q128 them with "
                + WIDE_Q128_TILES + " CTAs, the others mma.sync)"
                + ", backward " + WIDE_BACKWARD.configured().label() + " (-D" + WIDE_BACKWARD.property() + " or " + WIDE_BACKWARD.env()
                + "; wgmma runs where the backward family is wgmma-ws)"
                + "; elsewhere mma.sync (-D" + ForwardKernel.PROPERTY + " or " + ForwardKernel.ENV + ", -D" + BackwardKernel.PROPERTY
                + " or " + BackwardKernel.ENV + " choose)";
    }

    private static boolean contains(int[] a, int x) {
        for (int v : a) {
            if (v == x) {
                return true;
            }
        }
        return false;
    }
}
