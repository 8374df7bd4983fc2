package saw.remote;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * A server's host key as offered on first contact: the host as known_hosts names it ({@code host} or
 * {@code [host]:port}), the key type and its SHA-256 fingerprint in OpenSSH's form ({@code SHA256:...}).
 */
public record HostKey(String host, String type, String fingerprint) {
    static String fingerprint(byte[] key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key);
            return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java", e);
        }
    }

    /** "the ECDSA key of gpu-box, SHA256:..." */
    public String describe() {
        return type + " key of " + host + " " + fingerprint;
    }
}
