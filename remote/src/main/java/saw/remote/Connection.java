package saw.remote;

import com.jcraft.jsch.AgentIdentityRepository;
import com.jcraft.jsch.AgentProxyException;
import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.HostKeyRepository;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchChangedHostKeyException;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.JSchUnknownHostKeyException;
import com.jcraft.jsch.OpenSSHConfig;
import com.jcraft.jsch.SSHAgentConnector;
import com.jcraft.jsch.Session;
import com.jcraft.jsch.UnixDomainSocketFactory;
import com.jcraft.jsch.UserInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One SSH session to a target, with the user's config, keys, agent and known_hosts. Commands run through exec
 * channels (never a shell of saw's own, never the {@code ssh} program). The key's passphrase, when one is asked, is
 * handed to the SSH library and not kept.
 */
final class Connection implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MS = 15_000;
    private final Session session;
    private final String name;

    private Connection(Session session, String name) {
        this.session = session;
        this.name = name;
    }

    /** What a finished command gave: exit status (-1 when the connection dropped first), stdout and stderr. */
    record Result(int status, byte[] out, String err) {
        String outText() {
            return new String(out, StandardCharsets.UTF_8);
        }
    }

    static Connection open(Target target, SshSetup setup, HostKeyPrompt prompt, Function<String, String> passphrase)
            throws RemoteException {
        JSch jsch = new JSch();
        List<String> tried = new ArrayList<>();
        try {
            if (Files.isRegularFile(setup.config())) {
                jsch.setConfigRepository(OpenSSHConfig.parseFile(setup.config().toString()));
            }
            if (Files.isRegularFile(setup.knownHosts())) {
                jsch.setKnownHosts(setup.knownHosts().toString());
            }
            if (setup.agentSocket().isPresent() && Files.exists(setup.agentSocket().get())) {
                try {
                    AgentIdentityRepository agent = new AgentIdentityRepository(
                            new SSHAgentConnector(new UnixDomainSocketFactory(), setup.agentSocket().get()));
                    if (!agent.getIdentities().isEmpty()) {
                        jsch.setIdentityRepository(agent);
                        tried.add("the agent's keys");
                    }
                } catch (AgentProxyException e) {
                    // an agent that does not answer is skipped, as ssh does; the key files are tried instead
                }
            }
            if (tried.isEmpty()) {
                for (Path key : setup.existingIdentities()) {
                    jsch.addIdentity(key.toString());
                    tried.add(key.toString());
                }
            }
        } catch (IOException | JSchException e) {
            throw new RemoteException(RemoteException.Kind.FAILED, "cannot read the SSH setup: " + e.getMessage(), e);
        }
        RecordingHostKeys keys = new RecordingHostKeys(jsch.getHostKeyRepository());
        try {
            return connect(jsch, target, keys, passphrase, tried);
        } catch (RemoteException e) {
            HostKey offered = keys.offered;
            if (e.kind() != RemoteException.Kind.UNKNOWN_HOST_KEY || offered == null || !prompt.accept(offered)) {
                throw e;
            }
            keys.acceptOffered(setup.knownHosts());
            return connect(jsch, target, keys, passphrase, tried);
        }
    }

    private static Connection connect(JSch jsch, Target target, RecordingHostKeys keys, Function<String, String> passphrase,
            List<String> tried) throws RemoteException {
        Session s;
        try {
            s = target.user().isEmpty() ? jsch.getSession(target.host()) : jsch.getSession(target.user(), target.host());
            if (target.port() != 0) {
                s.setPort(target.port());
            }
            s.setHostKeyRepository(keys);
            s.setConfig("StrictHostKeyChecking", "yes");
            s.setConfig("PreferredAuthentications", "publickey");
            s.setUserInfo(new Prompts(passphrase));
            s.setServerAliveInterval(5_000);
            s.setServerAliveCountMax(3);
            s.setDaemonThread(true);
        } catch (JSchException e) {
            throw new RemoteException(RemoteException.Kind.FAILED, target + ": " + e.getMessage(), e);
        }
        String where = s.getUserName() + "@" + s.getHost() + ":" + s.getPort();
        try {
            s.connect(CONNECT_TIMEOUT_MS);
        } catch (JSchUnknownHostKeyException e) {
            HostKey k = keys.offered;
            throw new RemoteException(RemoteException.Kind.UNKNOWN_HOST_KEY, where + ": unknown host key"
                    + (k == null ? "" : ": " + k.type() + " " + k.fingerprint()) + "; not accepted, so not connected", e);
        } catch (JSchChangedHostKeyException e) {
            HostKey k = keys.offered;
            throw new RemoteException(RemoteException.Kind.CHANGED_HOST_KEY, where + ": the host key CHANGED"
                    + (k == null ? "" : " (now " + k.type() + " " + k.fingerprint() + ")")
                    + " from the one in known_hosts; if you expected this, remove the old line from known_hosts", e);
        } catch (JSchException e) {
            throw classify(e, where, tried);
        }
        return new Connection(s, target.address());
    }

    private static RemoteException classify(JSchException e, String where, List<String> tried) {
        Throwable c = e.getCause();
        if (c instanceof UnknownHostException) {
            return new RemoteException(RemoteException.Kind.UNREACHABLE, where + ": unknown host name (" + c.getMessage() + ")", e);
        }
        if (c instanceof ConnectException || c instanceof NoRouteToHostException || c instanceof SocketTimeoutException
                || String.valueOf(e.getMessage()).contains("timeout")) {
            return new RemoteException(RemoteException.Kind.UNREACHABLE, where + ": cannot connect ("
                    + (c != null ? c.getMessage() : e.getMessage()) + ")", e);
        }
        if (String.valueOf(e.getMessage()).contains("Auth fail") || String.valueOf(e.getMessage()).contains("Auth cancel")) {
            return new RemoteException(RemoteException.Kind.AUTH, where + ": the server refused the key"
                    + (tried.isEmpty() ? " (no key file in ~/.ssh and no agent)" : " (tried " + String.join(", ", tried) + ")")
                    + "; add your public key to ~/.ssh/authorized_keys there or load the right key into ssh-agent", e);
        }
        return new RemoteException(RemoteException.Kind.UNREACHABLE, where + ": " + e.getMessage(), e);
    }

    String name() {
        return name;
    }

    /** Runs a command to its end, feeding it {@code stdin} (or nothing), and collects its output. */
    Result run(String command, InputStream stdin) throws RemoteException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Running r = start(command, stdin);
        try {
            Thread errPump = pump(r.err(), err);
            r.out().transferTo(out);
            errPump.join();
        } catch (IOException e) {
            // the channel closed under us: the status below says whether the command finished
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new Result(r.waitFor(), out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    /** Starts a command; the caller reads its streams and then asks {@link Running#waitFor()}. */
    Running start(String command, InputStream stdin) throws RemoteException {
        try {
            ChannelExec ch = (ChannelExec) session.openChannel("exec");
            if (ch == null) {  // JSch gives no channel while a dropped session is being torn down
                throw new RemoteException(RemoteException.Kind.DROPPED, name + ": the connection dropped");
            }
            ch.setCommand(command);
            if (stdin != null) {
                ch.setInputStream(stdin, false);
            } else {
                ch.setInputStream(InputStream.nullInputStream());
            }
            InputStream out = ch.getInputStream();
            InputStream err = ch.getErrStream();
            ch.connect(CONNECT_TIMEOUT_MS);
            return new Running(ch, out, err);
        } catch (JSchException | IOException e) {
            if (!session.isConnected()) {
                throw new RemoteException(RemoteException.Kind.DROPPED, name + ": the connection dropped (" + e.getMessage() + ")", e);
            }
            throw new RemoteException(RemoteException.Kind.FAILED, name + ": cannot start a command (" + e.getMessage() + ")", e);
        }
    }

    /** A command in progress. */
    record Running(ChannelExec channel, InputStream out, InputStream err) {
        /** Waits until the channel closes; the exit status, or -1 when the connection dropped before one came. */
        int waitFor() {
            while (!channel.isClosed()) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            int status = channel.getExitStatus();
            channel.disconnect();
            return status;
        }
    }

    static Thread pump(InputStream in, OutputStream sink) {
        Thread t = new Thread(() -> {
            try {
                in.transferTo(sink);
            } catch (IOException e) {
                // the channel closed; what arrived is in the sink
            }
        }, "saw-remote-stderr");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void close() {
        session.disconnect();
    }

    /**
     * known_hosts as the library reads it, remembering the key a server offered so that an unknown one can be shown
     * to the user and, only when accepted, added.
     */
    private static final class RecordingHostKeys implements HostKeyRepository {
        private final HostKeyRepository known;
        private volatile HostKey offered;
        private volatile String offeredHost;
        private volatile byte[] offeredKey;
        private volatile String acceptedHost;
        private volatile byte[] acceptedKey;

        RecordingHostKeys(HostKeyRepository known) {
            this.known = known;
        }

        @Override
        public int check(String host, byte[] key) {
            if (host.equals(acceptedHost) && java.util.Arrays.equals(key, acceptedKey)) {
                return OK;
            }
            int r = known.check(host, key);
            if (r != OK) {
                try {
                    offered = new HostKey(host, new com.jcraft.jsch.HostKey(host, key).getType(), HostKey.fingerprint(key));
                } catch (JSchException e) {
                    offered = new HostKey(host, "unknown-type", HostKey.fingerprint(key));
                }
                offeredHost = host;
                offeredKey = key.clone();
            }
            return r;
        }

        void acceptOffered(Path knownHostsFile) throws RemoteException {
            try {
                Path dir = knownHostsFile.toAbsolutePath().getParent();
                if (!Files.isDirectory(dir)) {
                    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                }
                String line = offeredHost + " " + new com.jcraft.jsch.HostKey(offeredHost, offeredKey).getType() + " "
                        + java.util.Base64.getEncoder().encodeToString(offeredKey) + "\n";
                Files.writeString(knownHostsFile, line, StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                // appended by hand, not through the library, which would rewrite the user's whole file
                acceptedHost = offeredHost;
                acceptedKey = offeredKey;
            } catch (IOException | JSchException e) {
                throw new RemoteException(RemoteException.Kind.FAILED, "cannot add the host key to " + knownHostsFile + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void add(com.jcraft.jsch.HostKey hostkey, UserInfo ui) {
            known.add(hostkey, ui);
        }

        @Override
        public void remove(String host, String type) {
            known.remove(host, type);
        }

        @Override
        public void remove(String host, String type, byte[] key) {
            known.remove(host, type, key);
        }

        @Override
        public String getKnownHostsRepositoryID() {
            // null: the library must not rewrite the file itself; acceptOffered appends the accepted line
            return null;
        }

        @Override
        public com.jcraft.jsch.HostKey[] getHostKey() {
            return known.getHostKey();
        }

        @Override
        public com.jcraft.jsch.HostKey[] getHostKey(String host, String type) {
            return known.getHostKey(host, type);
        }
    }

    /** The library's questions: only a key's passphrase is ever answered, through the caller, and not kept. */
    private static final class Prompts implements UserInfo {
        private final Function<String, String> passphrase;
        private String answer;

        Prompts(Function<String, String> passphrase) {
            this.passphrase = passphrase;
        }

        @Override
        public String getPassphrase() {
            String a = answer;
            answer = null;
            return a;
        }

        @Override
        public String getPassword() {
            return null;
        }

        @Override
        public boolean promptPassword(String message) {
            return false;
        }

        @Override
        public boolean promptPassphrase(String message) {
            answer = passphrase == null ? null : passphrase.apply(message);
            return answer != null;
        }

        @Override
        public boolean promptYesNo(String message) {
            return false;
        }

        @Override
        public void showMessage(String message) {}
    }
}
