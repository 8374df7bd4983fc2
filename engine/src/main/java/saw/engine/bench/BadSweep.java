package saw.engine.bench;

/** A sweep that cannot be set up: the message names the option, JSON pointer or config value at fault. */
public final class BadSweep extends Exception {
    private static final long serialVersionUID = 1L;

    public BadSweep(String message) {
        super(message);
    }
}
