package saw.engine.gpu;

import java.util.Locale;

/**
 * The backward kernel family the GPU backend prefers. {@link #MMA} (mma.sync, FlashAttention-2 shape) runs every
 * supported problem; {@link #WGMMA} (Hopper warpgroup MMA, attention_bwd_wgmma.cu) runs on compute capability 9.0
 * with 128x128 tiles, and the backend falls back to {@link #MMA} wherever it does not fit. Chosen with
 * {@code -Dsaw.kernel.bwd=mma|wgmma} or the environment variable {@code SAW_KERNEL_BWD} (the property wins); the
 * default is {@link #WGMMA}.
 */
public enum BackwardKernel {
    MMA("mma"),
    WGMMA("wgmma");

    private final String label;

    BackwardKernel(String label) {
        this.label = label;
    }

    /** The setting's value that selects this family. */
    public String label() {
        return label;
    }

    static final String PROPERTY = "saw.kernel.bwd";
    static final String ENV = "SAW_KERNEL_BWD";

    /** The family named by the system property or the environment variable, else {@link #WGMMA}. */
    public static BackwardKernel configured() {
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
    static BackwardKernel parse(String value, String setting) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (BackwardKernel k : values()) {
            if (k.label.equals(v)) {
                return k;
            }
        }
        throw new IllegalArgumentException(setting + "=" + value + " is not a backward kernel family (mma or wgmma)");
    }
}
