package saw.remote;

/** Asks the user whether to trust a host key seen for the first time; saw never accepts one on its own. */
@FunctionalInterface
public interface HostKeyPrompt {
    /** True to add the key to known_hosts and go on; false to stop. */
    boolean accept(HostKey key);

    /** Refuses every unknown key (non-interactive use with no fingerprint given). */
    HostKeyPrompt REFUSE = key -> false;

    /** Accepts exactly the key with this fingerprint (the user read it and typed it back), nothing else. */
    static HostKeyPrompt fingerprint(String expected) {
        return key -> key.fingerprint().equals(expected.strip());
    }
}
