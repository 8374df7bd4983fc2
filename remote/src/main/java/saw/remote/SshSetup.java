package saw.remote;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The user's own SSH setup that connections honour: ~/.ssh/config (host aliases, HostName, User, Port,
 * IdentityFile), known_hosts, the default key files and the agent ({@code SSH_AUTH_SOCK}). Tests point it at
 * throwaway files instead.
 *
 * @param agentSocket the agent's Unix socket, or empty for none
 */
public record SshSetup(Path config, Path knownHosts, List<Path> identities, Optional<Path> agentSocket) {
    private static final List<String> DEFAULT_KEYS = List.of("id_ed25519", "id_ecdsa", "id_rsa");

    public SshSetup {
        identities = List.copyOf(identities);
    }

    /** ~/.ssh of this user and the agent of this environment. */
    public static SshSetup user() {
        Path ssh = Path.of(System.getProperty("user.home"), ".ssh");
        List<Path> keys = new ArrayList<>();
        for (String k : DEFAULT_KEYS) {
            keys.add(ssh.resolve(k));
        }
        String sock = System.getenv("SSH_AUTH_SOCK");
        return new SshSetup(ssh.resolve("config"), ssh.resolve("known_hosts"), keys,
                sock == null || sock.isBlank() ? Optional.empty() : Optional.of(Path.of(sock)));
    }

    /** The identity files that exist (the defaults that are missing are skipped, as ssh does). */
    List<Path> existingIdentities() {
        return identities.stream().filter(Files::isRegularFile).toList();
    }
}
