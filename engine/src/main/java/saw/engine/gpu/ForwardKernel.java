package saw.engine.gpu;

import java.util.Locale;

/**
 * The forward kernel family the GPU backend prefers. {@link #MMA} (mma.sync, FlashAttention-2 shape) runs every
 * supported problem; {@link #WGMMA} (Hopper warpgroup MMA, each tile's steps waited for in turn) and
 * {@link #WGMMA_OVERLAP} (the same with the next tile's Q K^T and this tile's P V in flight during the softmax) run
 * on compute capability 9.0 with 128x128 tiles, and the backend falls back to {@link #MMA} wherever they do not fit.
 * Chosen with {@code -Dsaw.kernel.fwd=mma|wgmma|wgmma-overlap} or the environment variable {@code SAW_KERNEL_FWD}
 * (the property wins); the default is {@link #WGMMA}, verified on the H200 and faster than {@link #MMA} at the same
 * tile on every timed row (docs/kernel-notes.md, issue 6).
 */
public enum ForwardKernel {
    MMA("mma"),
    WGMMA("wgmma"),
    WGMMA_OVERLAP("wgmma-overlap");

    private final String label;

    ForwardKernel(String label) {
        this.label = label;
    }

    /** The setting's value that selects this family. */
    public String label() {
        return label;
    }

    static final String PROPERTY = "saw.kernel.fwd";
    static final String ENV = "SAW_KERNEL_FWD";

    /** The family named by the system property or the environment variable, else {@link #WGMMA}. */
    public static ForwardKernel configured() {
        String property = System.getProperty(PROPERTY);
        if (property != null) {
            return parse(property, "-D" + PROPERTY);
        }
        String env = System.getenv(ENV);
        return env == null ? WGMMA : parse(env, ENV);
    }

    /**
     * @throws IllegalArgumentException naming the setting when the value is not one of the labels
     */
    static ForwardKernel parse(String value, String setting) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (ForwardKernel k : values()) {
            if (k.label.equals(v)) {
                return k;
            }
        }
        throw new IllegalArgumentException(setting + "=" + value + " is not a forward kernel family (mma, wgmma or wgmma-overlap)");
    }
}
