package saw.engine.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
    @Test
    void writesAndReplacesLeavingNoTemporaryFiles(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("out.json");
        AtomicFiles.write(file, out -> out.write("first".getBytes(StandardCharsets.UTF_8)));
        AtomicFiles.write(file, out -> out.write("second".getBytes(StandardCharsets.UTF_8)));
        assertEquals("second", Files.readString(file));
        assertEquals(List.of(file), list(dir));
    }

    @Test
    void removesTemporaryFilesThatKilledWritersLeftButNotFreshOrForeignOnes(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("out.json");
        Path stale = dir.resolve(".out.json.3f9a0c1d2b4e5f60.tmp");
        Path fresh = dir.resolve(".out.json.00ff.tmp");
        Path otherTarget = dir.resolve(".other.json.3f9a0c1d2b4e5f60.tmp");
        Path notOurs = dir.resolve(".out.json.backup.tmp");
        FileTime old = FileTime.from(Instant.now().minus(AtomicFiles.STALE).minusSeconds(60));
        for (Path p : List.of(stale, fresh, otherTarget, notOurs)) {
            Files.writeString(p, "partial");
            if (!p.equals(fresh)) {
                Files.setLastModifiedTime(p, old);
            }
        }
        AtomicFiles.write(file, out -> out.write("whole".getBytes(StandardCharsets.UTF_8)));
        assertEquals("whole", Files.readString(file));
        assertFalse(Files.exists(stale), "a stale temporary file of this target is removed");
        assertTrue(Files.exists(fresh), "a recent one may belong to a writer still running");
        assertTrue(Files.exists(otherTarget), "another target's are left to its own writes");
        assertTrue(Files.exists(notOurs), "a name saw does not make is never touched");
    }

    @Test
    void aFailureMidwayKeepsTheOldContent(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("out.json");
        Files.writeString(file, "old");
        IOException e = assertThrows(IOException.class, () -> AtomicFiles.write(file, out -> {
            out.write(new byte[1 << 20]);
            throw new IOException("disk full");
        }));
        assertEquals("disk full", e.getMessage());
        assertEquals("old", Files.readString(file));
        assertEquals(List.of(file), list(dir));
        assertThrows(IllegalStateException.class, () -> AtomicFiles.write(file, out -> {
            throw new IllegalStateException("bug");
        }));
        assertEquals(List.of(file), list(dir));
    }

    @Test
    void aFolderIsNotReplaced(@TempDir Path dir) throws IOException {
        Path folder = Files.createDirectory(dir.resolve("sub"));
        assertThrows(IOException.class, () -> AtomicFiles.write(folder, out -> out.write(1)));
        assertEquals(true, Files.isDirectory(folder));
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList();
        }
    }
}
