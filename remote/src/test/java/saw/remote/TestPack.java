package saw.remote;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A saw pack for the tests: the same layout bench/gpu-pack.sh makes (a {@code saw} launcher, lib/), holding this
 * build's CLI classes and their runtime jars, started with the test's own Java instead of a jlink'd one (the tests
 * do not run jlink). The remote runs real saw commands from it on the CPU backend.
 */
public final class TestPack {
    private TestPack() {}

    public static Path build(Path folder) throws IOException {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path lib = Files.createDirectories(folder.resolve("lib"));
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String e : cp.split(File.pathSeparator)) {
            Path p = Path.of(e);
            String s = p.toString();
            boolean ours = s.contains("/engine/target/classes") || s.contains("/app/target/classes") || s.contains("/presets/target/classes")
                    || s.contains("/remote/target/classes") || s.matches(".*/saw-(engine|app|presets|remote)-[^/]*\\.jar");
            boolean runtime = s.matches(".*/(jackson-[a-z]+|picocli|jsch|jcuda)-[^/]*\\.jar");
            if (s.contains("-tests.jar") || s.contains("test-classes") || !(ours || runtime) || !Files.exists(p)) {
                continue;
            }
            Path copy = lib.resolve((n++) + "-" + p.getFileName());
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path f : walk.toList()) {
                        Path to = copy.resolve(p.relativize(f).toString());
                        if (Files.isDirectory(f)) {
                            Files.createDirectories(to);
                        } else {
                            Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                }
            } else {
                Files.copy(p, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            entries.add("$here/lib/" + copy.getFileName());
        }
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path launcher = folder.resolve("saw");
        Files.writeString(launcher, "#!/bin/sh\nhere=$(cd \"$(dirname \"$0\")\" && pwd)\nexport SAW_GIT_COMMIT=${SAW_GIT_COMMIT:-test-pack}\n"
                + "exec '" + java + "' -Djava.awt.headless=true -Xshare:auto -cp \"" + String.join(":", entries)
                + "\" saw.app.Main \"$@\"\n");
        launcher.toFile().setExecutable(true);
        return folder;
    }
}
