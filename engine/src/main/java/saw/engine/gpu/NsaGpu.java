package saw.engine.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleSupplier;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.nsa.NsaKernels;
import saw.engine.nsa.NsaReference;
import saw.engine.nsa.NsaSelection;

/**
 * NSA selected attention on GPU 0 through nsa.cu: forward in one of three loop orders ({@link Forward}; by default per
 * kv-block with a partial O per choice and a merge for G <= 8; above, on Hopper at D = 128, a walk shared by 11
 * consecutive tokens where they share blocks, else a warp per token streaming its own blocks),
 * backward per kv-block over the tokens that chose it, in token chunks (tables from {@link NsaTables}, built on the
 * host and not part of the timed work). Not thread-safe.
 */
public final class NsaGpu implements NsaKernels {
    static final int[] BLOCKS = {32, 64, 128};
    /** Gathered rows of one step of the per-block forward and of the backward (NSA_ROWS in nsa.cu). */
    static final int ROWS = 64;

    /** The forward's loop order. */
    public enum Forward {
        /** A warp per (token, 16 heads) streaming its own blocks (the NSA paper's order, nsa_fwd_warp_* in nsa.cu). */
        WARP,
        /**
         * Per kv-block over the tokens that chose it (K and V loaded once per block): a partial O and (max, sum) per
         * (token, head, choice), written once, then a per-row merge (nsa_fwd_block_* and nsa_merge_* in nsa.cu).
         */
        BLOCK,
        /**
         * Tiles of {@link #SHARED_TOKENS} consecutive tokens, each walking the sorted union of their blocks and loading
         * each chunk ({@link #sharedKeys} keys) once for every token of the tile that chose it, at most one persistent
         * CTA per SM taking every grid-th tile (nsa_fwd_shared_* in nsa.cu; compute capability 9.0, G up to 16).
         */
        SHARED,
        /** {@link #auto}: the order measured fastest for the problem's group size that can run it. */
        AUTO;

        public static final String PROPERTY = "saw.nsa.fwd";
        public static final String ENV = "SAW_NSA_FWD";

        /** From -Dsaw.nsa.fwd or SAW_NSA_FWD (warp, block, shared or auto), else AUTO. */
        public static Forward configured() {
            return setting(values(), PROPERTY, ENV, AUTO, "warp, block, shared or auto");
        }

        /**
         * The one selection rule, from the H200 timings of one run side by side (bf16, HQ = 4 G, Hkv = 4, D = 128,
         * block 64, S = 16, random selections; docs/nsa.md): the block order wins at G = 1 (0.93 ms against the warp
         * order's 7.81, T = 32K), G = 2 (1.57 against 7.81) and G = 4 (2.94 against 7.85); the warp order wins at
         * G = 16 (T = 64K: 16.0 against 21.8). G = 8 was not timed side by side: the block order's useful TFLOP/s
         * rose with G (71, 84, 88 and 97 at G = 1, 2, 4 and 16) and the warp order ran 67 at G = 8 (7.88 ms at
         * T = 32K, an earlier run), so the block order is inferred to win there too. The warp order's MMA rows are
         * the group's heads, so its time is flat up to G = 16 and only a full group pays off.
         */
        static Forward forGroup(int group) {
            return group <= 8 ? BLOCK : WARP;
        }

        /**
         * The least {@link NsaTables.Walk#sharing} (choices per block the walk loads, over tiles of 11 tokens) at which
         * auto takes the shared walk over the warp order at this head dim and block size, or infinity where no walk is
         * built. Measured on the walk whose consumers visit only their own chunks, one H100, G = 16, bf16, S = 16,
         * random selections of falling sharing as T grows (docs/results/gpu-2026-12-07d/; walk's speed over the warp
         * order's). Blocks of 64 or more (64-key chunks): at D = 128 0.97x at sharing 1.11, 1.00x at 1.17, 1.03x at
         * 1.22, 1.08x at 1.26, 1.10x at 1.29, so 1.2; at D = 64 1.00x at 1.11, 1.08x at 1.15, 1.12x at 1.17, and
         * 1.08-1.37x at every sharing above (short problems included: 4K-16K), so 1.12. Blocks of 32 (32-key chunks):
         * at D = 128 0.97x at 1.09, 0.96x at 1.15, 1.01x at 1.21, 1.05x at 1.34, 1.10x at 1.57, so 1.2. At D = 64,
         * where the warp order's MMA rows cost half of D = 128's, sharing alone does not settle it: 0.60-0.77x from
         * 1.15 to 2.01, then 1.06x at 2.28 and 1.13x at 2.48 (scored, T = 256K and 128K), 1.08x at 2.92 (random 8K,
         * S = 32) and 1.19-1.26x at 2.75-3.09 (scored), but 0.81x at 2.93 (random 4K, S = 16); 2.2 takes the faster
         * order on 11 of the 12 rows timed, where the old 3.3 took it on 6.
         */
        public static double sharedMinSharing(int headDim, int block) {
            return switch (headDim) {
                case 128 -> 1.2;
                case 64 -> sharedKeys(block) == 64 ? 1.12 : 2.2;
                default -> Double.POSITIVE_INFINITY;
            };
        }

        /** Whether the shared walk is built for this GPU and problem: compute capability 9.0, G up to 16. */
        static boolean sharedRuns(int major, int group) {
            return major == 9 && group <= 16;
        }

        /**
         * {@link #forGroup}, except that a problem past the block order's 32-bit partial index ({@code partialRows},
         * batch x tokens x heads x S) runs in the warp order, which has no such limit, and that the warp order gives
         * way to the shared walk where it runs and the selection's {@code walkSharing} (asked for only then) reaches
         * {@link #sharedMinSharing} at the head dim and block size.
         */
        static Forward auto(int group, long partialRows, int major, int headDim, int block,
                DoubleSupplier walkSharing) {
            Forward f = forGroup(group);
            if (f == BLOCK) {
                return partialRows > Integer.MAX_VALUE ? WARP : f;
            }
            double least = sharedMinSharing(headDim, block);
            boolean shares = least < Double.POSITIVE_INFINITY && sharedRuns(major, group)
                    && walkSharing.getAsDouble() >= least;
            return shares ? SHARED : WARP;
        }
    }

    /** The instructions the per-block forward and the backward run on (the warp-order forward is mma.sync only). */
    public enum Family {
        /**
         * Warpgroup MMA, a warpgroup per 64 kv rows of a work item (nsa_fwd_block_wgmma_* and nsa_bwd_wgmma_* in
         * nsa.cu): compute capability 9.0, blocks 64 and 128.
         */
        WGMMA,
        /** mma.sync, every supported GPU and block size (nsa_fwd_block_* and nsa_bwd_chunked_* in nsa.cu). */
        MMA,
        /** WGMMA where it runs, else MMA. */
        AUTO;

        public static final String PROPERTY = "saw.nsa.family";
        public static final String ENV = "SAW_NSA_FAMILY";

        /** From -Dsaw.nsa.family or SAW_NSA_FAMILY (wgmma, mma or auto), else AUTO. */
        public static Family configured() {
            return setting(values(), PROPERTY, ENV, AUTO, "wgmma, mma or auto");
        }

        static boolean wgmmaRuns(int major, int block) {
            return major == 9 && block % 64 == 0;
        }

        /** The family this choice runs on a GPU of compute capability {@code major}.x with this block size. */
        Family resolve(int major, int block) {
            if (this == AUTO) {
                return wgmmaRuns(major, block) ? WGMMA : MMA;
            }
            if (this == WGMMA && !wgmmaRuns(major, block)) {
                throw new IllegalArgumentException(PROPERTY + " / " + ENV + " is wgmma, which runs NSA block sizes 64 "
                        + "and 128 on compute capability 9.0 only; this is block size " + block
                        + " on compute capability " + major + ".x (use mma or auto)");
            }
            return this;
        }
    }

    /** Where the warpgroup backward adds dQ (nsa_bwd_wgmma_* in nsa.cu). */
    public enum DqAccumulator {
        /** An fp32 accumulator, converted to dQ afterwards: the default, as precise as the dense backwards. */
        FP32,
        /**
         * dQ itself, in its element type (bf16 / fp16 vector adds of the scaled partials): half the bytes into L2, the
         * backward's bound, for each dQ element rounded at each of its up to S adds (nsa_bwd_wgmma_*_dqn; Hopper,
         * blocks 64 and 128; the mma.sync family keeps fp32).
         */
        NATIVE;

        public static final String PROPERTY = "saw.nsa.dqAccum";
        public static final String ENV = "SAW_NSA_DQ_ACCUM";

        /** From -Dsaw.nsa.dqAccum or SAW_NSA_DQ_ACCUM (fp32 or native), else FP32. */
        public static DqAccumulator configured() {
            return setting(values(), PROPERTY, ENV, FP32, "fp32 or native");
        }
    }

    /**
     * The constant named by the system property, else the environment variable (case and surrounding blanks
     * ignored), else {@code fallback} when neither is set or blank.
     *
     * @throws IllegalArgumentException naming both settings and the valid values ({@code choices})
     */
    private static <E extends Enum<E>> E setting(E[] values, String property, String env, E fallback, String choices) {
        String v = System.getProperty(property, System.getenv(env));
        if (v == null || v.isBlank()) {
            return fallback;
        }
        for (E e : values) {
            if (e.name().equalsIgnoreCase(v.trim())) {
                return e;
            }
        }
        throw new IllegalArgumentException(property + " / " + env + " is '" + v + "'; it must be " + choices);
    }

    private final CudaDevice cuda;
    private final String description;
    private final int major;
    private Forward forward = Forward.configured();
    private Family family = Family.configured();
    private DqAccumulator dqAccumulator = DqAccumulator.configured();

    private NsaGpu(CudaDevice cuda, String description, int major) {
        this.cuda = cuda;
        this.description = description;
        this.major = major;
    }

    /** The per-block forward's and the backward's instructions from now on. */
    public void family(Family kernels) {
        this.family = kernels;
    }

    /** Where the warpgroup backward adds dQ from now on. */
    public void dqAccumulator(DqAccumulator where) {
        this.dqAccumulator = where;
    }

    /** The forward loop order from now on. */
    public void forwardOrder(Forward order) {
        this.forward = order;
    }

    public Forward forwardOrder() {
        return forward;
    }

    /**
     * The forward order {@link Forward#AUTO} runs for this problem and selection on this GPU (warp, block or shared),
     * whatever order is set: what a comparison's "auto" column has to name. {@code walkSharing} is
     * {@link #walkSharing}'s value for {@code sel}, which the caller has counted already (NaN: no walk table).
     */
    public Forward autoForward(AttentionProblem p, NsaSelection sel, double walkSharing) {
        double sharing = Double.isNaN(walkSharing) ? 0 : walkSharing;
        int group = p.heads() / p.kvHeads();
        return Forward.auto(group, partialRows(p, sel), major, p.headDim(), sel.blockSize(), () -> sharing);
    }

    /** The settings the next run takes, as a run's log should name them: forward order, family, dQ adds. */
    public String settings() {
        return "forward " + forward.name().toLowerCase(Locale.ROOT) + ", family " + family.name().toLowerCase(Locale.ROOT)
                + ", dQ adds " + dqAccumulator.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Opens GPU 0 and loads the kernels.
     *
     * @throws GpuException with {@link GpuBackend#detect()}'s sentence when the GPU cannot run them here
     */
    public static NsaGpu open() {
        GpuStatus status = GpuBackend.detect();
        if (!status.usable()) {
            throw new GpuException(status.message());
        }
        CudaDevice cuda = new CudaDevice(0);
        DeviceProbe.Device d = new JCudaProbe().device(0);
        return new NsaGpu(cuda, d.name(), d.major());
    }

    /** On another driver (a fake one in tests), with the kernels of {@code image}, as compute capability 8.0. */
    static NsaGpu open(Driver driver, byte[] image, String device) {
        return open(driver, image, device, 8);
    }

    /** As {@link #open(Driver, byte[], String)}, on a GPU of compute capability {@code major}.0. */
    static NsaGpu open(Driver driver, byte[] image, String device, int major) {
        return new NsaGpu(new CudaDevice(driver, 0, image), device, major);
    }

    /** Null when the kernels run this problem and selection, else a sentence saying why not. */
    public static String unsupported(AttentionProblem p, NsaSelection sel) {
        String why = NsaReference.mismatch(p, sel);
        if (why != null) {
            return why;
        }
        if (p.headDim() != 64 && p.headDim() != 128) {
            return "head dim " + p.headDim() + " is not supported by the NSA kernels (64 or 128)";
        }
        for (int b : BLOCKS) {
            if (b == sel.blockSize()) {
                return null;
            }
        }
        return "NSA block size " + sel.blockSize() + " is not supported by the kernels (32, 64 or 128)";
    }

    static String warpName(DType t, int d, int block) {
        return "nsa_fwd_warp_" + t.label() + "_d" + d + "_b" + block;
    }

    /** Warps per CTA, keys per pipeline chunk and chunks per warp ring of nsa_fwd_warp (NSA_WARP_* in nsa.cu). */
    static final int WARP_WARPS = 4;
    static final int WARP_KEYS = 16;
    static final int WARP_STAGES = 3;

    /** One warp per (batch, kv head, token, 16 heads of the group); each warp a ring of K and V chunks. */
    static LaunchShape warpShape(AttentionProblem p, int block) {
        int d = p.headDim();
        int group = p.heads() / p.kvHeads();
        long items = (long) p.batch() * p.kvHeads() * p.seqQ() * ((group + 15) / 16);
        return new LaunchShape(warpName(p.dtype(), d, block), (items + WARP_WARPS - 1) / WARP_WARPS, WARP_WARPS * 32,
                WARP_WARPS * WARP_STAGES * 2 * WARP_KEYS * d * 2);
    }

    /** Tokens of one shared-walk tile: its consumer warps, one per token (NSA_SHARED_TOKENS in nsa.cu). */
    public static final int SHARED_TOKENS = 11;
    /** Keys of K and V per ring slot of the shared walk (NSA_SHARED_KEYS in nsa.cu). */
    static final int SHARED_KEYS = 32;
    /**
     * Bytes of the shared walk's ring (NSA_SHARED_RING_BYTES in nsa.cu): 12 slots of D = 128's 32-key chunks, 6 of its
     * 64-key ones; 12 of D = 64's 64-key chunks, 24 of its 32-key ones.
     */
    static final int SHARED_RING_BYTES = 12 * 2 * SHARED_KEYS * 128 * 2;

    /**
     * The selection's sharing as {@link Forward#auto} counts it: choices per distinct block over the shared walk's
     * tiles of {@link #SHARED_TOKENS} tokens (auto takes the walk from {@link Forward#sharedMinSharing} on), or NaN
     * past the blocks the walk can name.
     */
    public static double walkSharing(NsaSelection sel) {
        return NsaTables.walkable(sel) ? NsaTables.walk(sel, SHARED_TOKENS).sharing() : Double.NaN;
    }

    static String sharedName(DType t, int d, int block) {
        return "nsa_fwd_shared_" + t.label() + "_d" + d + "_b" + block;
    }

    /**
     * Persistent, one work item per (plane, tile of {@link #SHARED_TOKENS} tokens), at most one CTA per SM taking
     * every grid-th item: a consumer warp per token and a producer warp that runs on into the CTA's next tile.
     */
    static LaunchShape sharedShape(AttentionProblem p, int block) {
        int d = p.headDim();
        long tiles = (long) p.batch() * p.kvHeads() * ((p.seqQ() + SHARED_TOKENS - 1) / SHARED_TOKENS);
        return new LaunchShape(sharedName(p.dtype(), d, block), tiles, (SHARED_TOKENS + 1) * 32,
                SHARED_RING_BYTES + 1024, true); // + the slack that aligns the ring to 1024 bytes
    }

    /** Keys of a chunk of the shared walk (nsa_shared_keys in nsa.cu): 64 with blocks of 64 or more, else 32. */
    static int sharedKeys(int block) {
        return block >= 64 ? 64 : SHARED_KEYS;
    }

    /** The tensor map the walk's producer reads a chunk of K or V through: boxes of 64 columns x a chunk's rows. */
    static TileMap walkKvMap(AttentionProblem p, int block) {
        return TileMap.ofHeads(p.dtype() == DType.BF16, (long) p.batch() * p.kvHeads(), p.seqKv(), p.headDim(),
                sharedKeys(block));
    }

    static String blockName(DType t, int d, int block) {
        return "nsa_fwd_block_" + t.label() + "_d" + d + "_b" + block;
    }

    static String mergeName(DType t, int d) {
        return "nsa_merge_" + t.label() + "_d" + d;
    }

    /** Warps per CTA of nsa_fwd_block (NSA_BLOCK_WARPS in nsa.cu) and of nsa_merge (one warp per row). */
    static final int BLOCK_WARPS = 4;
    static final int MERGE_WARPS = 8;
    /** Q bytes of one token chunk of the per-block forward's work order: what the resident CTAs keep in L2. */
    static final long BLOCK_CHUNK_Q_BYTES = 16L << 20;
    /** The most gathered rows (tokens x G) of one per-block work item. */
    static final int BLOCK_ITEM_ROWS = 2048;

    /** Tokens per chunk of the per-block forward's work order: {@link #BLOCK_CHUNK_Q_BYTES} of Q, at least one block. */
    static int blockChunkTokens(AttentionProblem p, int block) {
        int group = p.heads() / p.kvHeads();
        long tokens = BLOCK_CHUNK_Q_BYTES / (2L * group * p.headDim());
        return (int) Math.max(block, Math.min(p.seqQ(), tokens));
    }

    static int blockItemTokens(AttentionProblem p) {
        return Math.max(1, BLOCK_ITEM_ROWS / (p.heads() / p.kvHeads()));
    }

    static String blockWgmmaName(DType t, int d, int block) {
        return "nsa_fwd_block_wgmma_" + t.label() + "_d" + d + "_b" + block;
    }

    /**
     * One CTA per work item; K and V of the block, two 64-row Q stages and their row tables in shared memory. MMA: four
     * warps; WGMMA: one warpgroup, and 1024 bytes more to align the tiles for the 128-byte swizzle.
     */
    static LaunchShape blockShape(AttentionProblem p, int block, int items, Family kernels) {
        int d = p.headDim();
        int smem = (2 * block * d + 2 * ROWS * d) * 2 + 4 * ROWS * 4;
        if (kernels == Family.WGMMA) {
            return new LaunchShape(blockWgmmaName(p.dtype(), d, block), Math.max(1, items), 128, smem + 1024);
        }
        return new LaunchShape(blockName(p.dtype(), d, block), Math.max(1, items), BLOCK_WARPS * 32, smem);
    }

    static LaunchShape mergeShape(AttentionProblem p) {
        long rows = (long) p.batch() * p.heads() * p.seqQ();
        return new LaunchShape(mergeName(p.dtype(), p.headDim()), (rows + MERGE_WARPS - 1) / MERGE_WARPS, MERGE_WARPS * 32, 0);
    }

    /** Partial rows of the per-block forward: one per (batch, token, kv head, slot, head of the group). */
    static long partialRows(AttentionProblem p, NsaSelection sel) {
        return (long) p.batch() * p.seqQ() * p.heads() * sel.maxSelected();
    }

    /**
     * Q, dO and dQ-accumulator bytes of a backward token chunk that stay in L2 while its items run: 16 MiB won at T =
     * 32K for G 4-16 at D 128 and G 16 at D 64 (H100, 2026-12-06, docs/kernel-notes.md), 32 MiB lost there by 2-9%.
     */
    static final long BWD_CHUNK_BYTES = 16L << 20;
    /**
     * Gathered rows (tokens x G) that a backward item should reach on average: each item copies its block's K and V and
     * adds its dK and dV once, and below about this many rows those per-item costs outweigh the chunk's L2 fit
     * (T = 64K, G = 16: chunks of 24 MiB, items of about 768 rows, beat 16 MiB by 5% and 32 MiB by 3%).
     */
    static final int BWD_ITEM_ROWS = 768;

    /**
     * Tokens per chunk of the backward's work order: {@link #BWD_CHUNK_BYTES} of Q, dO and dQ accumulator, or more where
     * the items would stay under {@link #BWD_ITEM_ROWS} rows, and no more than it takes for the items to reach their cap
     * ({@link #blockItemTokens}). A chunk of c tokens gives each kv block it reaches about 2 S block c / T of them: a
     * causal token picks S of the about T / (2 block) blocks before it.
     */
    static int backwardChunkTokens(AttentionProblem p, NsaSelection sel) {
        int group = p.heads() / p.kvHeads();
        double perChunkToken = 2.0 * sel.maxSelected() * sel.blockSize() / p.seqQ();
        double byBytes = (double) BWD_CHUNK_BYTES / (8L * group * p.headDim());
        double byItems = BWD_ITEM_ROWS / (group * perChunkToken);
        double atCap = blockItemTokens(p) / perChunkToken;
        long tokens = (long) Math.ceil(Math.min(Math.max(byBytes, byItems), atCap));
        return (int) Math.max(sel.blockSize(), Math.min(p.seqQ(), tokens));
    }

    static String backwardName(DType t, int d, int block, boolean softcap) {
        return "nsa_bwd_chunked_" + t.label() + "_d" + d + "_b" + block + (softcap ? "_softcap" : "");
    }

    static String wgmmaBackwardName(DType t, int d, int block, boolean softcap, boolean nativeDq, boolean kvStaged) {
        return "nsa_bwd_wgmma_" + t.label() + "_d" + d + "_b" + block + (softcap ? "_softcap" : "")
                + (nativeDq ? "_dqn" : "") + (kvStaged ? "_kvs" : "");
    }

    /**
     * One plane's fp32 dK and dV accumulators (kv tokens x D x 8 bytes) from which the warpgroup backward adds each
     * item's dK and dV whole lines at a time through shared memory (nsa_bwd_wgmma_*_kvs). H100, 2026-12-06
     * (docs/kernel-notes.md, "Whole lines for dK and dV"): 1.03-1.04x at T = 64K (64 MiB a plane, B = 1 and 2); staged
     * everywhere it was level at 32K and 0.93-0.99x at 8K and at B = 4, T = 16K, where the accumulators stay in L2 and
     * the item's closing barrier is a cost.
     */
    static final long KV_STAGED_MIN_BYTES = 64L << 20;

    /** Whether the warpgroup backward takes the staged dK / dV variant: fp32 dQ, D = 128, block 64, a plane past L2. */
    static boolean kvStaged(AttentionProblem p, int block, boolean nativeDq) {
        return !nativeDq && p.headDim() == 128 && block == 64
                && (long) p.seqKv() * p.headDim() * 8 >= KV_STAGED_MIN_BYTES;
    }

    /**
     * One CTA per work item: K and V of the block, two stages of 64 gathered Q and dO rows, dS transposed, and per row
     * LSE, Dsum, token and head in shared memory. MMA: block / 16 warps; WGMMA: a warpgroup per 64 kv rows, and 1024
     * bytes more to align the tiles for the 128-byte swizzle. {@code nativeDq}: the warpgroup kernel that adds dQ in
     * its element type ({@link DqAccumulator#NATIVE}).
     */
    static LaunchShape backwardShape(AttentionProblem p, int block, int items, Family kernel, boolean nativeDq) {
        int d = p.headDim();
        int smem = (2 * block * d + 4 * ROWS * d + block * ROWS) * 2 + 8 * ROWS * 4;
        boolean capped = p.softcap() > 0;
        if (kernel == Family.WGMMA) {
            String name = wgmmaBackwardName(p.dtype(), d, block, capped, nativeDq, kvStaged(p, block, nativeDq));
            return new LaunchShape(name, Math.max(1, items), block / 64 * 128, smem + 1024);
        }
        return new LaunchShape(backwardName(p.dtype(), d, block, capped), Math.max(1, items), block / 16 * 32, smem);
    }

    /** Every NSA kernel the fatbin should hold. */
    static List<String> allNames() {
        List<String> names = new ArrayList<>();
        for (DType t : DType.values()) {
            for (int d : KernelCatalog.HEAD_DIMS) {
                for (int b : BLOCKS) {
                    names.add(warpName(t, d, b));
                    names.add(sharedName(t, d, b));
                    names.add(blockName(t, d, b));
                    names.add(backwardName(t, d, b, false));
                    names.add(backwardName(t, d, b, true));
                    if (b % 64 == 0) {
                        names.add(blockWgmmaName(t, d, b));
                        for (boolean nativeDq : new boolean[] {false, true}) {
                            names.add(wgmmaBackwardName(t, d, b, false, nativeDq, false));
                            names.add(wgmmaBackwardName(t, d, b, true, nativeDq, false));
                        }
                        if (d == 128 && b == 64) {
                            names.add(wgmmaBackwardName(t, d, b, false, false, true));
                            names.add(wgmmaBackwardName(t, d, b, true, false, true));
                        }
                    }
                }
                names.add(mergeName(t, d));
            }
        }
        return names;
    }

    @Override
    public String name() {
        return "gpu";
    }

    public String device() {
        return description;
    }

    @Override
    public AttentionOutputs forward(AttentionInputs in, NsaSelection sel) {
        return run(in, sel, false);
    }

    @Override
    public AttentionOutputs forwardBackward(AttentionInputs in, NsaSelection sel) {
        return run(in.requireGradient(), sel, true);
    }

    /** A validated problem with its tables and launches. */
    private static final class Plan {
        final AttentionProblem p;
        final NsaSelection sel;
        final NsaTables tables;
        final LaunchShape warp;
        final LaunchShape block;
        final LaunchShape merge;
        final LaunchShape bwd;
        final Forward order;
        final boolean backward;
        /** The backward adds dQ in its element type straight into dQ (no fp32 accumulator, no conversion). */
        final boolean nativeDq;

        Plan(AttentionProblem p, NsaSelection sel, boolean backward, Forward order, Family family, int major,
             DqAccumulator dq) {
            String why = unsupported(p, sel);
            if (why != null) {
                throw new IllegalArgumentException(why);
            }
            this.p = p;
            this.sel = sel;
            this.backward = backward;
            int group = p.heads() / p.kvHeads();
            // the walk's table: built where auto weighs the walk (its sharing decides) and kept if the walk runs; past
            // the blocks a walk entry can name, auto counts no sharing and keeps the warp order
            NsaTables.Walk[] walk = {NsaTables.Walk.NONE};
            this.order = order != Forward.AUTO ? order : Forward.auto(group, partialRows(p, sel), major, p.headDim(),
                    sel.blockSize(), () -> NsaTables.walkable(sel)
                            ? (walk[0] = NsaTables.walk(sel, SHARED_TOKENS)).sharing() : 0);
            boolean perBlock = this.order == Forward.BLOCK;
            if (perBlock && partialRows(p, sel) > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("the per-block NSA forward indexes its partials with 32 bits: batch x "
                        + "tokens x heads x S = " + partialRows(p, sel) + " is past " + Integer.MAX_VALUE
                        + "; use the warp order (" + Forward.ENV + "=warp) or auto");
            }
            boolean shared = this.order == Forward.SHARED;
            if (shared && !Forward.sharedRuns(major, group)) {
                throw new IllegalArgumentException(Forward.PROPERTY + " / " + Forward.ENV + " is shared, which runs on "
                        + "compute capability 9.0 with at most 16 heads per kv head; this is compute capability "
                        + major + ".x with " + group + " (use warp, block or auto)");
            }
            if (shared && walk[0] == NsaTables.Walk.NONE) {
                walk[0] = NsaTables.walk(sel, SHARED_TOKENS);
            }
            this.tables = NsaTables.of(sel, perBlock ? blockChunkTokens(p, sel.blockSize()) : 0,
                    backward ? backwardChunkTokens(p, sel) : 0, blockItemTokens(p),
                    shared ? walk[0] : NsaTables.Walk.NONE);
            // resolved only where a kernel of the family runs: a warp-order forward alone needs neither
            Family kernels = backward || perBlock ? family.resolve(major, sel.blockSize()) : Family.MMA;
            this.warp = shared ? sharedShape(p, sel.blockSize()) : warpShape(p, sel.blockSize());
            this.block = blockShape(p, sel.blockSize(), tables.items.length / 3, kernels);
            this.merge = mergeShape(p);
            this.nativeDq = backward && dq == DqAccumulator.NATIVE && kernels == Family.WGMMA;
            this.bwd = backwardShape(p, sel.blockSize(), tables.bwdItems.length / 3, kernels, nativeDq);
        }
    }

    /** The tables on the device. */
    private static final class DeviceTables extends BufferList {
        final DeviceBuffer indices;
        final DeviceBuffer counts;
        final DeviceBuffer colTok;
        final DeviceBuffer colSlot;
        final DeviceBuffer items;
        final DeviceBuffer partialO;
        final DeviceBuffer partialMaxSum;
        final DeviceBuffer bwdItems;
        final DeviceBuffer walkPtr;
        final DeviceBuffer walk;
        final DeviceBuffer dKacc;
        final DeviceBuffer dVacc;

        DeviceTables(CudaDevice cuda, Plan plan) {
            NsaTables t = plan.tables;
            long partials = plan.order == Forward.BLOCK ? partialRows(plan.p, plan.sel) : 0;
            long kvAcc = plan.backward ? 4 * plan.p.kvElements() : 16;
            try {
                // both forward orders read the selection itself: the warp order walks it, the merge finds its slots
                indices = add(cuda.upload("NSA block_indices", plan.sel.indices()));
                counts = add(cuda.upload("NSA block_counts", plan.sel.counts()));
                colTok = add(cuda.upload("NSA block tokens", t.colTok));
                colSlot = add(cuda.upload("NSA block slots", t.colSlot));
                items = add(cuda.upload("NSA per-block items", t.items));
                partialO = add(cuda.buffer("NSA partial O", Math.max(16, 2 * partials * plan.p.headDim())));
                partialMaxSum = add(cuda.buffer("NSA partial max and sum", Math.max(16, 8 * partials)));
                bwdItems = add(cuda.upload("NSA backward items", t.bwdItems));
                walkPtr = add(cuda.upload("NSA walk tiles", t.walk.ptr()));
                walk = add(cuda.upload("NSA walk", t.walk.entries()));
                dKacc = add(cuda.buffer("dK accumulator", kvAcc));
                dVacc = add(cuda.buffer("dV accumulator", kvAcc));
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    private AttentionOutputs run(AttentionInputs in, NsaSelection sel, boolean backward) {
        AttentionProblem p = in.problem();
        Plan plan = new Plan(p, sel, backward, forward, family, major, dqAccumulator);
        cuda.makeCurrent();
        cuda.syncEachLaunch(true);
        int qn = (int) AttentionInputs.qSize(p);
        int rows = p.batch() * p.heads() * p.seqQ();
        try (DeviceTables t = new DeviceTables(cuda, plan);
             DeviceBuffer q = cuda.uploadHalves("Q", p.dtype(), in.q());
             DeviceBuffer k = cuda.uploadHalves("K", p.dtype(), in.k());
             DeviceBuffer v = cuda.uploadHalves("V", p.dtype(), in.v());
             DeviceBuffer o = cuda.buffer("O", 2L * qn);
             DeviceBuffer lse = cuda.buffer("LSE", 4L * rows)) {
            o.fill16("O", DeviceBuffer.NAN16);
            lse.fill32("LSE", DeviceBuffer.NAN32);
            launchForward(plan, t, q, k, v, o, lse);
            float[] oh = o.readHalves("O", p.dtype(), qn);
            float[] lseh = lse.readFloats("LSE", rows);
            if (!backward) {
                return AttentionOutputs.forward(oh, lseh);
            }
            try (DeviceBuffer dO = cuda.uploadHalves("dO", p.dtype(), in.dO());
                 GradientBuffers g = new GradientBuffers(cuda, p)) {
                launchBackward(plan, t, q, k, v, o, lse, dO, g.dsum, g.dqAcc, g.dq, g.dk, g.dv);
                return g.read(oh, lseh);
            }
        }
    }

    private void launchForward(Plan plan, DeviceTables t, DeviceBuffer q, DeviceBuffer k, DeviceBuffer v, DeviceBuffer o,
                               DeviceBuffer lse) {
        AttentionProblem p = plan.p;
        if (plan.order == Forward.BLOCK) {
            if (plan.tables.items.length > 0) { // no token chose anything: the merge alone writes O = 0, LSE = -inf
                cuda.launch(plan.block, q, k, v, t.partialO, t.partialMaxSum, t.items, t.colTok, t.colSlot, p.heads(),
                        p.kvHeads(), p.seqQ(), plan.sel.numKvBlocks(), plan.sel.maxSelected(), (float) p.scale(),
                        (float) p.softcap());
            }
            cuda.launch(plan.merge, t.partialO, t.partialMaxSum, t.indices, t.counts, o, lse, p.batch(), p.heads(),
                    p.kvHeads(), p.seqQ(), plan.sel.maxSelected());
        } else if (plan.order == Forward.SHARED) {
            Object[] args = {q, k, v, o, lse, t.walkPtr, t.walk, p.batch(), p.heads(), p.kvHeads(), p.seqQ(),
                (float) p.scale(), (float) p.softcap()};
            cuda.launch(plan.warp, cuda.withTileMaps(args, walkKvMap(p, plan.sel.blockSize()), "K and V", k, v));
        } else {
            cuda.launch(plan.warp, q, k, v, o, lse, t.indices, t.counts, p.batch(), p.heads(), p.kvHeads(), p.seqQ(),
                    plan.sel.maxSelected(), (float) p.scale(), (float) p.softcap());
        }
    }

    private void launchBackward(Plan plan, DeviceTables t, DeviceBuffer q, DeviceBuffer k, DeviceBuffer v, DeviceBuffer o,
                                DeviceBuffer lse, DeviceBuffer dO, DeviceBuffer dsum, DeviceBuffer dqAcc, DeviceBuffer dq,
                                DeviceBuffer dk, DeviceBuffer dv) {
        AttentionProblem p = plan.p;
        long rows = (long) p.batch() * p.heads() * p.seqQ();
        if (plan.nativeDq) {
            dq.fill16("dQ", (short) 0);
        } else {
            dqAcc.fill32("dQ accumulator", 0);
        }
        t.dKacc.fill32("dK accumulator", 0);
        t.dVacc.fill32("dV accumulator", 0);
        cuda.launch(KernelCatalog.backwardPre(p), o, dO, dsum, rows);
        if (plan.tables.bwdItems.length > 0) { // no token chose anything: dK = dV = 0 from the zeroed accumulators
            cuda.launch(plan.bwd, q, k, v, dO, lse, dsum, plan.nativeDq ? dq : dqAcc, t.dKacc, t.dVacc, t.bwdItems,
                    t.colTok, p.heads(), p.kvHeads(), p.seqQ(), plan.sel.numKvBlocks(), (float) p.scale(),
                    (float) p.softcap());
        }
        LaunchShape convert = KernelCatalog.toElements(p.dtype(), p.kvElements());
        cuda.launch(convert, t.dKacc, dk, p.kvElements(), (float) p.scale());
        cuda.launch(convert, t.dVacc, dv, p.kvElements(), 1.0f);
        if (!plan.nativeDq) {
            cuda.launch(KernelCatalog.backwardDq(p), dqAcc, dq, rows * p.headDim(), (float) p.scale());
        }
    }

    /**
     * A pass on device-drawn random inputs, timed with CUDA events; the backward (Dsum, the kernel, dK, dV and dQ
     * conversions) is timed after one untimed forward. Each timed run fills {@link GpuBackend#FLUSH_BYTES} of scratch
     * first where the GPU has room for it, as {@link GpuBackend}'s do.
     */
    public AttentionBackend.PreparedRun prepare(AttentionProblem p, NsaSelection sel, Pass pass, long seed) {
        Plan plan = new Plan(p, sel, pass == Pass.BWD, forward, family, major, dqAccumulator);
        cuda.makeCurrent();
        cuda.syncEachLaunch(false);
        return new TimedRun(plan, pass, seed);
    }

    private final class TimedRun implements AttentionBackend.PreparedRun {
        private final Plan plan;
        private final Pass pass;
        private final DeviceTables tables;
        private final TimedSets sets;

        TimedRun(Plan plan, Pass pass, long seed) {
            this.plan = plan;
            this.pass = pass;
            AttentionProblem p = plan.p;
            // the sizes' host-array limits, as a checked run has them
            AttentionInputs.qSize(p);
            AttentionInputs.kvSize(p);
            this.tables = new DeviceTables(cuda, plan);
            try {
                this.sets = new TimedSets(cuda, p, pass, seed, GpuBackend.FLUSH_BYTES, set -> launchForward(plan,
                        tables, set[TimedSets.Q], set[TimedSets.K], set[TimedSets.V], set[TimedSets.O],
                        set[TimedSets.LSE]));
            } catch (RuntimeException e) {
                tables.close();
                throw e;
            }
        }

        @Override
        public String kernelName() {
            if (pass == Pass.BWD) {
                return plan.bwd.kernel();
            }
            return plan.order == Forward.BLOCK ? plan.block.kernel() + "+" + plan.merge.kernel() : plan.warp.kernel();
        }

        @Override
        public double runTimedMs() {
            return sets.time(s -> {
                if (pass == Pass.FWD) {
                    launchForward(plan, tables, s[0], s[1], s[2], s[3], s[4]);
                } else {
                    launchBackward(plan, tables, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]);
                }
            });
        }

        @Override
        public void close() {
            sets.close();
            tables.close();
        }
    }

    @Override
    public void close() {
        cuda.close();
    }
}
