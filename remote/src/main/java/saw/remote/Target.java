package saw.remote;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where to run: {@code [user@]host[:port]} as the user types it, where host may be a {@code Host} alias of
 * ~/.ssh/config (its HostName, User, Port and IdentityFile then apply), plus an optional command prefix for
 * clusters (e.g. {@code srun -p gpu --gres=gpu:1}) that the remote saw is started under.
 *
 * @param user the login name, or "" for the one ~/.ssh/config gives (else the local user name)
 * @param port the port, or 0 for the one ~/.ssh/config gives (else 22)
 */
public record Target(String user, String host, int port, String prefix) {
    private static final Pattern ADDRESS = Pattern.compile("(?:([^@\\s:]+)@)?([A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\])(?::([0-9]{1,5}))?");

    public Target {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(host, "host");
        prefix = prefix == null ? "" : prefix.strip();
        if (host.isEmpty()) {
            throw new IllegalArgumentException("a target needs a host name");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not in 1..65535");
        }
        if (prefix.contains("\n")) {
            throw new IllegalArgumentException("the command prefix must be one line");
        }
    }

    /** Parses {@code [user@]host[:port]}; the message names what is wrong with it. */
    public static Target parse(String address, String prefix) {
        String a = address == null ? "" : address.strip();
        Matcher m = ADDRESS.matcher(a);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + a + "' is not user@host[:port] or a host alias of ~/.ssh/config");
        }
        int port = 0;
        if (m.group(3) != null) {
            port = Integer.parseInt(m.group(3));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("'" + a + "': port " + port + " is not in 1..65535");
            }
        }
        String host = m.group(2);
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        return new Target(m.group(1) == null ? "" : m.group(1), host, port, prefix);
    }

    /** The address as typed: {@code user@host:port} with the parts that were given. */
    public String address() {
        String h = host.contains(":") ? "[" + host + "]" : host;
        return (user.isEmpty() ? "" : user + "@") + h + (port == 0 ? "" : ":" + port);
    }

    public Target withPrefix(String newPrefix) {
        return new Target(user, host, port, newPrefix);
    }

    @Override
    public String toString() {
        return address();
    }
}
