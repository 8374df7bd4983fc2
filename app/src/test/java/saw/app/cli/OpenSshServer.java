package saw.app.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import saw.remote.SshSetup;
import saw.remote.TestSshServer;

/**
 * A real OpenSSH server for the end-to-end test: Debian's /usr/sbin/sshd started by the test on a free high port
 * of 127.0.0.1, with its own config, host key and authorized key in a folder of the test, in the foreground (no
 * daemon, no system service touched). Tests run as root here, and sshd then needs its privilege separation folder
 * /run/sshd: it is created when missing. Where sshd is missing or cannot start, {@link #start} skips the test and
 * says why.
 */
final class OpenSshServer implements AutoCloseable {
    private static final Path SSHD = Path.of("/usr/sbin/sshd");
    private static final Path KEYGEN = Path.of("/usr/bin/ssh-keygen");
    final Path dir;
    final Path userKey;
    final Path cache;
    final int port;
    private final Process process;

    private OpenSshServer(Path dir, Path userKey, Path cache, int port, Process process) {
        this.dir = dir;
        this.userKey = userKey;
        this.cache = cache;
        this.port = port;
        this.process = process;
    }

    static OpenSshServer start(Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(SSHD) && Files.isExecutable(KEYGEN),
                "OpenSSH's server is not installed (/usr/sbin/sshd; Debian: apt-get install openssh-server)");
        boolean root = "root".equals(System.getProperty("user.name"));
        Path privsep = Path.of("/run/sshd");
        if (root && !Files.isDirectory(privsep)) {
            try {
                Files.createDirectories(privsep);
            } catch (IOException e) {
                Assumptions.abort("sshd runs as root here and needs /run/sshd, which cannot be created: " + e.getMessage());
            }
        }
        Path hostKey = dir.resolve("ssh_host_ecdsa_key");
        Process keygen = new ProcessBuilder(KEYGEN.toString(), "-q", "-t", "ecdsa", "-b", "256", "-N", "", "-f", hostKey.toString())
                .redirectErrorStream(true).start();
        Assumptions.assumeTrue(keygen.waitFor(30, TimeUnit.SECONDS) && keygen.exitValue() == 0, "ssh-keygen could not make a host key");
        Path userKey = dir.resolve("id_openssh_test");
        TestSshServer.writeUserKey(userKey);
        Files.copy(dir.resolve("id_openssh_test.pub"), dir.resolve("authorized_keys"));
        Path cache = Files.createDirectories(dir.resolve("xdg-cache"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path config = dir.resolve("sshd_config");
        Files.writeString(config, String.join("\n", List.of(
                "ListenAddress 127.0.0.1:" + port,
                "HostKey " + hostKey,
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "PidFile none",
                "StrictModes no",
                "UsePAM no",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",
                "PermitRootLogin prohibit-password",
                // the remote cache goes to the test's folder, not this user's real ~/.cache
                "SetEnv XDG_CACHE_HOME=" + cache,
                "LogLevel ERROR")) + "\n", StandardCharsets.UTF_8);
        Path log = dir.resolve("sshd.log");
        Process sshd = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!sshd.isAlive()) {
                Assumptions.abort("sshd did not start: " + Files.readString(log).strip().replace('\n', ' '));
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                return new OpenSshServer(dir, userKey, cache, port, sshd);
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        sshd.destroyForcibly();
        Assumptions.abort("sshd did not listen on port " + port + " within 15 s: " + Files.readString(log).strip());
        return null;
    }

    String address() {
        return System.getProperty("user.name") + "@127.0.0.1:" + port;
    }

    /** The host key's fingerprint as ssh-keygen prints it. */
    String fingerprint() throws Exception {
        Process p = new ProcessBuilder(KEYGEN.toString(), "-l", "-E", "sha256", "-f", dir.resolve("ssh_host_ecdsa_key.pub").toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out.split(" ")[1];
    }

    SshSetup setup(Path knownHosts) {
        return new SshSetup(dir.resolve("no-ssh-config"), knownHosts, List.of(userKey), Optional.empty());
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
    }
}
