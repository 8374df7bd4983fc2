package saw.engine.gpu;

import java.util.Locale;

/**
 * The forward kernel family the GPU backend prefers. {@link #MMA} (mma.sync, FlashAttention-2 shape) runs every
 * supported problem; {@link #WGMMA} (Hopper warpgroup MMA) runs on compute capability 9.0 with 128x128 tiles, and
 * the backend falls back to {@link #MMA} wherever it does not fit. Chosen with {@code -Dsaw.kernel.fwd=mma|wgmma}
 * or the environment variable {@code SAW_KERNEL_FWD} (the property wins); the default is {@link #MMA}.
 */
public enum ForwardKernel {
    MMA,
    WGMMA;

    static final String PROPERTY = "saw.kernel.fwd";
    static final String ENV = "SAW_KERNEL_FWD";

    /** The family named by the system property or the environment variable, else {@link #MMA}. */
    public static ForwardKernel configured() {
        String property = System.getProperty(PROPERTY);
        if (property != null) {
            return parse(property, "-D" + PROPERTY);
        }
        String env = System.getenv(ENV);
        return env == null ? MMA : parse(env, ENV);
    }

    /**
     * @throws IllegalArgumentException naming the setting when the value is neither mma nor wgmma
     */
    static ForwardKernel parse(String value, String setting) {
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "mma": return MMA;
            case "wgmma": return WGMMA;
            default:
                throw new IllegalArgumentException(setting + "=" + value + " is not a forward kernel family (mma or wgmma)");
        }
    }
}
