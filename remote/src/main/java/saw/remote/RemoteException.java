package saw.remote;

/**
 * A remote step that failed, with one line a user can act on. {@link #kind()} says which failure it is, so that
 * callers can offer the right next step (accept a host key, resume a sweep).
 */
public class RemoteException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** The host, port or name could not be reached or resolved. */
        UNREACHABLE,
        /** The server's host key is not in known_hosts and was not accepted. */
        UNKNOWN_HOST_KEY,
        /** The server's host key differs from the one in known_hosts. */
        CHANGED_HOST_KEY,
        /** The server refused every key (and the agent's). */
        AUTH,
        /** No saw on the remote and no pack here to upload, or the remote saw could not start. */
        NO_SAW,
        /** The remote ran out of disk space. */
        DISK_FULL,
        /** The connection dropped while a command ran. */
        DROPPED,
        /** A remote command failed in another way. */
        FAILED
    }

    private final Kind kind;

    public RemoteException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public RemoteException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
