package saw.engine.attention;

/** Which half of attention a run computes. */
public enum Pass {
    /** O and LSE from Q, K, V. */
    FWD,
    /** dQ, dK, dV from dO, with O and LSE from a forward run (timed without that forward). */
    BWD;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Pass parse(String s) {
        for (Pass p : values()) {
            if (p.label().equalsIgnoreCase(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("pass '" + s + "' is not one of fwd, bwd");
    }
}
