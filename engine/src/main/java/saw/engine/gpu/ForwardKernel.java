package saw.engine.gpu;

/**
 * The forward kernel family the GPU backend prefers. {@link #MMA} (mma.sync, FlashAttention-2 shape) runs every
 * supported problem. The Hopper families (warpgroup MMA) run on compute capability 9.0 with 128x128 tiles, and the
 * backend falls back to {@link #MMA} wherever they do not fit: {@link #WGMMA} (each tile's steps waited for in
 * turn), {@link #WGMMA_OVERLAP} (the next tile's Q K^T and this tile's P V in flight during the softmax),
 * {@link #WGMMA_WS} (the overlap with a producer warpgroup that does all loads, mbarrier-synchronised) and
 * {@link #WGMMA_PINGPONG} (that, with the two consumer warpgroups taking turns on the tensor cores); at head dims 64 and
 * 128 these two are persistent (one CTA per SM taking rows from a work queue, {@link LaunchShape#persistent}).
 * Chosen with {@code -Dsaw.kernel.fwd=mma|wgmma|wgmma-overlap|wgmma-ws|wgmma-pp} or the environment variable {@code SAW_KERNEL_FWD}
 * (the property wins). At head dim 256 (64x64 tiles, compute capability 9.0, unless {@code -Dsaw.kernel.fwd256=mma})
 * {@link #WGMMA_WS} and {@link #WGMMA_PINGPONG} run the D = 256 Hopper forward, by default with 128-row CTAs over
 * the mask compiled at 128x64 (attention_fwd_wgmma_d256.cu; {@code -Dsaw.kernel.fwd256=wgmma}: 64-row CTAs), and the
 * other families the mma.sync one. The default is {@link #WGMMA_PINGPONG}: verified on the H200 and 1.4-1.9x {@link #MMA}'s best
 * tile there, 550-560 TFLOP/s on causal S=8192 D=128 (docs/kernel-notes.md, issue 6).
 */
public enum ForwardKernel {
    MMA("mma", "fwd_", 0),
    WGMMA("wgmma", "fwd_wgmma_", 256),
    WGMMA_OVERLAP("wgmma-overlap", "fwd_wgmmaov_", 256),
    WGMMA_WS("wgmma-ws", "fwd_wgmmaws_", 384),
    WGMMA_PINGPONG("wgmma-pp", "fwd_wgmmapp_", 384);

    private final String label;
    private final String kernelPrefix;
    private final int hopperThreads;

    ForwardKernel(String label, String kernelPrefix, int hopperThreads) {
        this.label = label;
        this.kernelPrefix = kernelPrefix;
        this.hopperThreads = hopperThreads;
    }

    /** The start of this family's kernel names in the fatbin. */
    String kernelPrefix() {
        return kernelPrefix;
    }

    /** Threads per CTA of a Hopper family (two or three warpgroups); 0 for {@link #MMA}, whose CTA depends on the tile. */
    int hopperThreads() {
        return hopperThreads;
    }

    /** The Hopper families, in the order {@code saw env} and the timings list them. */
    static ForwardKernel[] hopper() {
        return new ForwardKernel[] {WGMMA, WGMMA_OVERLAP, WGMMA_WS, WGMMA_PINGPONG};
    }

    /** The setting's value that selects this family. */
    public String label() {
        return label;
    }

    static final String PROPERTY = "saw.kernel.fwd";
    static final String ENV = "SAW_KERNEL_FWD";

    /** The family named by the system property or the environment variable, else {@link #WGMMA_PINGPONG}. */
    public static ForwardKernel configured() {
        return KernelSetting.configured(values(), ForwardKernel::label, PROPERTY, ENV, WGMMA_PINGPONG, "forward");
    }

    /**
     * @throws IllegalArgumentException naming the setting when the value is not one of the labels
     */
    static ForwardKernel parse(String value, String setting) {
        return KernelSetting.parse(values(), ForwardKernel::label, value, setting, "forward");
    }
}
