package saw.remote;

import com.jcraft.jsch.JSch;
import com.jcraft.jsch.KeyPair;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.digest.BuiltinDigests;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.apache.sshd.server.config.keys.AuthorizedKeysAuthenticator;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;

/**
 * An SSH server in the test JVM (Apache MINA SSHD) on 127.0.0.1 and an ephemeral port, with a throwaway EC host
 * key, one authorized throwaway user key, and exec commands run by /bin/sh with HOME set to a folder of the test:
 * the "remote" is this machine, so its processes can be checked directly.
 */
public final class TestSshServer implements AutoCloseable {
    public final SshServer sshd;
    public final Path home;
    public final Path dir;
    public final Path userKey;
    private final List<Process> processes = new CopyOnWriteArrayList<>();

    private TestSshServer(Path dir) throws Exception {
        this.dir = dir;
        this.home = Files.createDirectories(dir.resolve("remote-home"));
        this.userKey = dir.resolve("id_test");
        writeUserKey(userKey);
        Files.copy(dir.resolve("id_test.pub"), dir.resolve("authorized_keys"));
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        SimpleGeneratorHostKeyProvider hostKeys = new SimpleGeneratorHostKeyProvider(dir.resolve("host-key.ser"));
        hostKeys.setAlgorithm(KeyUtils.EC_ALGORITHM);
        hostKeys.setKeySize(256);
        sshd.setKeyPairProvider(hostKeys);
        sshd.setPublickeyAuthenticator(new AuthorizedKeysAuthenticator(dir.resolve("authorized_keys")));
        sshd.setCommandFactory((channel, command) -> new ShellCommand(command));
        sshd.start();
    }

    public static TestSshServer start(Path dir) throws Exception {
        return new TestSshServer(dir);
    }

    /** Writes an EC key pair (KEY and KEY.pub) as ssh-keygen would. */
    public static void writeUserKey(Path key) throws Exception {
        KeyPair kp = KeyPair.genKeyPair(new JSch(), KeyPair.ECDSA, 256);
        kp.writePrivateKey(key.toString());
        kp.writePublicKey(key + ".pub", "saw-test");
        kp.dispose();
    }

    public int port() {
        return sshd.getPort();
    }

    public String address() {
        return System.getProperty("user.name") + "@127.0.0.1:" + port();
    }

    /** The host key's fingerprint as MINA computes it (OpenSSH's SHA256:... form). */
    public String fingerprint() throws Exception {
        PublicKey key = sshd.getKeyPairProvider().loadKeys(null).iterator().next().getPublic();
        return KeyUtils.getFingerPrint(BuiltinDigests.sha256, key);
    }

    /** A client setup with this server's user key, a known_hosts file of the test and no agent. */
    public SshSetup setup(Path knownHosts, Path key) {
        return new SshSetup(dir.resolve("no-ssh-config"), knownHosts, List.of(key), Optional.empty());
    }

    /** The remote cache folder (~/.cache/saw there). */
    public Path cache() {
        return home.resolve(".cache").resolve("saw");
    }

    /** Cuts every connection, as a network failure would. */
    public void dropConnections() {
        sshd.getActiveSessions().forEach(s -> s.close(true));
    }

    public List<Process> processes() {
        return processes;
    }

    @Override
    public void close() throws IOException {
        sshd.stop(true);
        for (Process p : processes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    /** One exec request: /bin/sh -c COMMAND with the remote HOME, its streams pumped to and from the channel. */
    private final class ShellCommand implements Command {
        private final String command;
        private InputStream in;
        private OutputStream out;
        private OutputStream err;
        private ExitCallback exit;
        private Process process;

        ShellCommand(String command) {
            this.command = command;
        }

        @Override
        public void setInputStream(InputStream in) {
            this.in = in;
        }

        @Override
        public void setOutputStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void setErrorStream(OutputStream err) {
            this.err = err;
        }

        @Override
        public void setExitCallback(ExitCallback callback) {
            this.exit = callback;
        }

        @Override
        public void start(ChannelSession channel, Environment env) throws IOException {
            ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", command);
            Map<String, String> e = pb.environment();
            e.put("HOME", home.toString());
            e.remove("XDG_CACHE_HOME");
            e.remove("SAW_PACK");
            process = pb.start();
            processes.add(process);
            Thread stdin = pump(in, process.getOutputStream(), true);
            Thread stdout = pump(process.getInputStream(), out, false);
            Thread stderr = pump(process.getErrorStream(), err, false);
            Thread waiter = new Thread(() -> {
                try {
                    int code = process.waitFor();
                    stdout.join();
                    stderr.join();
                    stdin.interrupt();
                    exit.onExit(code);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }, "test-sshd-wait");
            waiter.setDaemon(true);
            waiter.start();
        }

        private Thread pump(InputStream from, OutputStream to, boolean closeTo) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[1 << 16];
                try {
                    for (int n = from.read(buf); n >= 0; n = from.read(buf)) {
                        to.write(buf, 0, n);
                        to.flush();
                    }
                } catch (IOException ex) {
                    // either side closed
                } finally {
                    if (closeTo) {
                        try {
                            to.close();
                        } catch (IOException ex) {
                            // the process is gone
                        }
                    }
                }
            }, "test-sshd-pump");
            t.setDaemon(true);
            t.start();
            return t;
        }

        @Override
        public void destroy(ChannelSession channel) {
            // OpenSSH leaves a command without a terminal running when its channel closes; it then dies writing to
            // the closed pipe. Closing our end of its stdout gives it the same fate.
            if (process != null && process.isAlive()) {
                try {
                    process.getInputStream().close();
                    process.getErrorStream().close();
                } catch (IOException ex) {
                    // already closed
                }
            }
        }
    }
}
