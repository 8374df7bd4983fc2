package saw.engine.guard;

/**
 * Work refused before it started because it would not fit: the message is the estimate's sentence (what, how
 * much, how much is free, what to change). An {@link IllegalArgumentException}, as backends throw for problems
 * they cannot run.
 */
public final class TooLarge extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final transient Estimate estimate;

    public TooLarge(Estimate estimate) {
        super(estimate.sentence());
        this.estimate = estimate;
    }

    public Estimate estimate() {
        return estimate;
    }
}
