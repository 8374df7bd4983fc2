package saw.engine.bench;

/** A results file that cannot be read: the message names the file, the line and what is wrong. */
public final class BadResultsFile extends Exception {
    private static final long serialVersionUID = 1L;

    public BadResultsFile(String message) {
        super(message);
    }
}
