package saw.engine.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * saw's version and git commit for results headers. Looked up in order: a {@code saw-build.properties} resource
 * (keys {@code version}, {@code git_commit}; a packaging script may add it), the environment variable
 * {@code SAW_GIT_COMMIT}, then {@code git} in the working directory (commit, "-dirty" with uncommitted changes).
 */
final class BuildInfo {
    private static final Properties PROPS = load();

    private BuildInfo() {}

    static String version() {
        String v = PROPS.getProperty("version");
        if (v != null && !v.isBlank()) {
            return v;
        }
        Package p = BuildInfo.class.getPackage();
        return p != null && p.getImplementationVersion() != null ? p.getImplementationVersion() : "dev";
    }

    static String gitCommit() {
        String c = PROPS.getProperty("git_commit");
        if (c != null && !c.isBlank()) {
            return c;
        }
        String env = System.getenv("SAW_GIT_COMMIT");
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        String head = git("rev-parse", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        return git("status", "--porcelain", "--untracked-files=no").isEmpty() ? head : head + "-dirty";
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/saw-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // no build info: the fallbacks below apply
        }
        return p;
    }

    /** The trimmed output of a git command, or "" when git is missing, fails or takes over 3 s. */
    private static String git(String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "git";
        System.arraycopy(args, 0, cmd, 1, args.length);
        try {
            Process proc = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            proc.getOutputStream().close();
            byte[] out = proc.getInputStream().readAllBytes();
            if (!proc.waitFor(3, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                return "";
            }
            return proc.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8).trim() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
