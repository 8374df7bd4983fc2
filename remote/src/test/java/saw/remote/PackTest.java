package saw.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pack archive: the system's tar unpacks it to the same files and modes, and the same folder gives the same bytes. */
class PackTest {
    @TempDir
    Path dir;

    @Test
    void tarUnpacksTheSameFilesAndTheChecksumIsStable() throws Exception {
        long seed = Long.getLong("saw.test.seed", System.nanoTime());
        Random random = new Random(seed);
        Path pack = Files.createDirectories(dir.resolve("pack"));
        Files.writeString(pack.resolve("saw"), "#!/bin/sh\nexport SAW_GIT_COMMIT=${SAW_GIT_COMMIT:-abc123def456}\necho hi\n");
        pack.resolve("saw").toFile().setExecutable(true);
        Path deep = Files.createDirectories(pack.resolve("runtime/lib/" + "a-long-folder-name-".repeat(4) + "/more/" + "x".repeat(60)));
        for (int i = 0; i < 5; i++) {
            byte[] data = new byte[random.nextInt(3000) + (i == 0 ? 0 : 1)];
            random.nextBytes(data);
            Files.write((i % 2 == 0 ? deep : pack).resolve("file-" + i + ".bin"), data);
        }
        Pack a = Pack.of(pack);
        Pack b = Pack.of(pack);
        assertEquals(a.sha256(), b.sha256(), "seed " + seed);
        assertArrayEquals(a.archive(), b.archive());
        assertEquals("abc123def456", a.commit());
        assertEquals("pack-" + a.sha256().substring(0, 16), a.stamp());

        Path archive = Files.write(dir.resolve("p.tar.gz"), a.archive());
        Path out = Files.createDirectories(dir.resolve("out"));
        Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", out.toString()).redirectErrorStream(true).start();
        String log = new String(tar.getInputStream().readAllBytes());
        assertEquals(0, tar.waitFor(), log);
        try (var files = Files.walk(pack)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path g = out.resolve(pack.relativize(f).toString());
                assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(g), f + " (seed " + seed + ")");
                assertEquals(Files.isExecutable(f), Files.isExecutable(g), f.toString());
            }
        }
        Files.writeString(pack.resolve("saw"), "#!/bin/sh\necho changed\n");
        assertNotEquals(a.sha256(), Pack.of(pack).sha256(), "a changed pack is a new version");
    }

    @Test
    void aFolderWithoutLauncherIsNotAPack() {
        RemoteException e = assertThrows(RemoteException.class, () -> Pack.of(dir));
        assertEquals(RemoteException.Kind.NO_SAW, e.kind());
        assertTrue(e.getMessage().contains("bench/gpu-pack.sh"), e.getMessage());
    }
}
