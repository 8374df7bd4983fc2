package saw.engine.nsa;

/** An NSA selection that cannot be used, with a sentence naming the file, field or position that is wrong. */
public final class BadSelection extends Exception {
    private static final long serialVersionUID = 1L;

    public BadSelection(String message) {
        super(message);
    }
}
