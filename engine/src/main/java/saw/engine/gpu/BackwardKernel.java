package saw.engine.gpu;

/**
 * The backward kernel family the GPU backend prefers. {@link #MMA} (mma.sync, FlashAttention-2 shape) runs every
 * supported problem. The Hopper family {@link #WGMMA_WS} (warpgroup MMA, attention_bwd_wgmma.cu: two consumer
 * warpgroups fed by a producer warpgroup through an mbarrier ring, dQ staged in shared memory and added by one bulk
 * reduce-add per step, persistent) runs on compute capability 9.0 with 128x128 tiles, and the backend falls back to
 * {@link #MMA} wherever it does not fit. Chosen with {@code -Dsaw.kernel.bwd=mma|wgmma-ws} or the environment
 * variable {@code SAW_KERNEL_BWD} (the property wins); any other value is refused with the list of these. The
 * default is {@link #WGMMA_WS}, verified on the H200 and 1.07-1.14x the lock-step Hopper backward with dQ atomics
 * there (issue 6), then 1.02-1.03x that with the bulk dQ (issue 12; docs/kernel-notes.md); the lock-step family was
 * retired (docs/kernel-notes.md, "Retired Hopper families"). At head dim 256 (64x64 tiles, compute capability 9.0,
 * unless {@code -Dsaw.kernel.bwd256=mma}) {@link #WGMMA_WS} runs the one D = 256 wgmma backward
 * (attention_bwd_wgmma_d256.cu); {@link #MMA} keeps the mma.sync one.
 */
public enum BackwardKernel {
    MMA("mma", "bwd_"),
    WGMMA_WS("wgmma-ws", "bwd_wgmmaws_");

    private final String label;
    private final String kernelPrefix;

    BackwardKernel(String label, String kernelPrefix) {
        this.label = label;
        this.kernelPrefix = kernelPrefix;
    }

    /** The start of this family's kernel names in the fatbin. */
    String kernelPrefix() {
        return kernelPrefix;
    }

    /** The Hopper families, in the order the catalog and the timings list them. */
    static BackwardKernel[] hopper() {
        return new BackwardKernel[] {WGMMA_WS};
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
