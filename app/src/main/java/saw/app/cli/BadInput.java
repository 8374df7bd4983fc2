package saw.app.cli;

/** Thrown by a command when what the user gave cannot be used; the message (one line per problem) is all they see. */
final class BadInput extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadInput(String message) {
        super(message, null, false, false);
    }
}
