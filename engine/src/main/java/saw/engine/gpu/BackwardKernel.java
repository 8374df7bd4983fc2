package saw.engine.gpu;

/**
 * The backward kernel family the GPU backend prefers. {@link #MMA} (mma.sync, FlashAttention-2 shape) runs every
 * supported problem. The Hopper families (warpgroup MMA, attention_bwd_wgmma.cu) run on compute capability 9.0 with
 * 128x128 tiles, and the backend falls back to {@link #MMA} wherever they do not fit: {@link #WGMMA} (two
 * warpgroups that load and compute in lock-step, dQ added with atomics) and {@link #WGMMA_WS} (the same computation
 * by two consumer warpgroups, fed by a producer warpgroup through an mbarrier ring, with dQ staged in shared memory
 * and added by one bulk reduce-add per step). Chosen with {@code -Dsaw.kernel.bwd=mma|wgmma|wgmma-ws} or the
 * environment variable {@code SAW_KERNEL_BWD} (the property wins); the default is {@link #WGMMA_WS}, verified on the
 * H200 and 1.07-1.14x {@link #WGMMA} there with atomics (issue 6), then 1.02-1.03x that with the bulk dQ (issue 12;
 * docs/kernel-notes.md). At head dim 256 (64x64 tiles, compute capability 9.0, unless
 * {@code -Dsaw.kernel.bwd256=mma}) every Hopper family runs the one D = 256 wgmma backward
 * (attention_bwd_wgmma_d256.cu); {@link #MMA} keeps the mma.sync one.
 */
public enum BackwardKernel {
    MMA("mma", "bwd_", 0),
    WGMMA("wgmma", "bwd_wgmma_", 256),
    WGMMA_WS("wgmma-ws", "bwd_wgmmaws_", 384);

    private final String label;
    private final String kernelPrefix;
    private final int hopperThreads;

    BackwardKernel(String label, String kernelPrefix, int hopperThreads) {
        this.label = label;
        this.kernelPrefix = kernelPrefix;
        this.hopperThreads = hopperThreads;
    }

    /** The start of this family's kernel names in the fatbin. */
    String kernelPrefix() {
        return kernelPrefix;
    }

    /** Threads per CTA of a Hopper family; 0 for {@link #MMA}, whose CTA depends on the tile. */
    int hopperThreads() {
        return hopperThreads;
    }

    /** The Hopper families, in the order the catalog and the timings list them. */
    static BackwardKernel[] hopper() {
        return new BackwardKernel[] {WGMMA, WGMMA_WS};
    }

    /** The setting's value that selects this family. */
    public String label() {
        return label;
    }

    static final String PROPERTY = "saw.kernel.bwd";
    static final String ENV = "SAW_KERNEL_BWD";

    /** The family named by the system property or the environment variable, else {@link #WGMMA_WS}. */
    public static BackwardKernel configured() {
        return KernelSetting.configured(values(), BackwardKernel::label, PROPERTY, ENV, WGMMA_WS, "backward");
    }

    /**
     * @throws IllegalArgumentException naming the setting when the value is not one of the labels
     */
    static BackwardKernel parse(String value, String setting) {
        return KernelSetting.parse(values(), BackwardKernel::label, value, setting, "backward");
    }
}
