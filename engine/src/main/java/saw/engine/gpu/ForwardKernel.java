package saw.engine.gpu;

/**
 * The forward kernel family the GPU backend prefers. {@link #MMA} (mma.sync, FlashAttention-2 shape) runs every
 * supported problem. The Hopper families (warpgroup MMA) run on compute capability 9.0 with 128x128 tiles, and the
 * backend falls back to {@link #MMA} wherever they do not fit: {@link #WGMMA_WS} (a producer warpgroup that does all
 * loads, mbarrier-synchronised, and two consumer warpgroups each with the next tile's Q K^T and this tile's P V in
 * flight during the softmax) and {@link #WGMMA_PINGPONG} (that, with the two consumer warpgroups taking turns on the
 * tensor cores); at head dims 64 and 128 both are persistent (one CTA per SM taking rows from a work queue,
 * {@link LaunchShape#persistent}). Chosen with {@code -Dsaw.kernel.fwd=mma|wgmma-ws|wgmma-pp} or the environment
 * variable {@code SAW_KERNEL_FWD} (the property wins); any other value is refused with the list of these. At head
 * dim 256 (64x64 tiles, compute capability 9.0, unless {@code -Dsaw.kernel.fwd256=mma}) both Hopper families run the
 * D = 256 Hopper forward, by default with 128-row CTAs over the mask compiled at 128x64
 * (attention_fwd_wgmma_d256.cu; {@code -Dsaw.kernel.fwd256=wgmma}: 64-row CTAs), and {@link #MMA} the mma.sync one.
 * The default is {@link #WGMMA_PINGPONG}: verified on the H200 and 1.4-1.9x {@link #MMA}'s best tile there, 550-560
 * TFLOP/s on causal S=8192 D=128 (docs/kernel-notes.md, issue 6). The first two Hopper families, without warp
 * specialisation, were retired (docs/kernel-notes.md, "Retired Hopper families").
 */
public enum ForwardKernel {
    MMA("mma", "fwd_"),
    WGMMA_WS("wgmma-ws", "fwd_wgmmaws_"),
    WGMMA_PINGPONG("wgmma-pp", "fwd_wgmmapp_");

    private final String label;
    private final String kernelPrefix;

    ForwardKernel(String label, String kernelPrefix) {
        this.label = label;
        this.kernelPrefix = kernelPrefix;
    }

    /** The start of this family's kernel names in the fatbin. */
    String kernelPrefix() {
        return kernelPrefix;
    }

    /** The Hopper families, in the order {@code saw env} and the timings list them. */
    static ForwardKernel[] hopper() {
        return new ForwardKernel[] {WGMMA_WS, WGMMA_PINGPONG};
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
