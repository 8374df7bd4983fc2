package saw.engine.attention;

/** Element type of Q, K, V, O and the gradients. */
public enum DType {
    BF16("bf16", 1e-2),
    FP16("fp16", 2e-3);

    private final String label;
    private final double tolerance;

    DType(String label, double tolerance) {
        this.label = label;
        this.tolerance = tolerance;
    }

    public String label() {
        return label;
    }

    /** Relative error ||out - ref|| / ||ref|| above which {@code saw verify} fails. */
    public double tolerance() {
        return tolerance;
    }

    public static DType parse(String s) {
        for (DType d : values()) {
            if (d.label.equalsIgnoreCase(s)) {
                return d;
            }
        }
        throw new IllegalArgumentException("dtype '" + s + "' is not one of bf16, fp16");
    }
}
