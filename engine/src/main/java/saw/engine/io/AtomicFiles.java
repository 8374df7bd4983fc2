package saw.engine.io;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;

/**
 * Writing files so that a crash never leaves half of one: the content goes to a temporary file in the same folder,
 * is flushed and forced to disk, and then renamed over the target in one step. A process killed mid-write leaves
 * its hidden temporary file behind; the next successful write of the same target removes those older than
 * {@link #STALE}.
 */
public final class AtomicFiles {
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Temporary files of a target older than this belong to a writer that died (saw's writes take seconds). */
    static final Duration STALE = Duration.ofHours(1);

    private AtomicFiles() {}

    /** What writes the content; it must not close the stream. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Writes {@code file} atomically. On any failure the target is left as it was and the temporary file is removed.
     */
    public static void write(Path file, Content content) throws IOException {
        Path target = file.toAbsolutePath();
        Path folder = target.getParent();
        if (Files.isDirectory(target)) {
            throw new IOException(file + " is a folder");
        }
        Path temp = folder.resolve(tempPrefix(target) + Long.toHexString(RANDOM.nextLong()) + TEMP_SUFFIX);
        // CREATE_NEW (not createTempFile) so the file gets the usual permissions, not owner-only ones
        FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            try (channel) {
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
                content.writeTo(out);
                out.flush();
                channel.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException | Error e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        syncFolder(folder);
        removeStaleTemps(target);
    }

    /** What runs under a lock; it may throw. */
    @FunctionalInterface
    public interface Locked<T> {
        T run() throws IOException;
    }

    /** Keeps other threads of this JVM out, which the file lock would refuse with OverlappingFileLockException. */
    private static final Object LOCAL_LOCK = new Object();

    /**
     * Runs {@code action} while holding an exclusive lock on {@code target}'s sibling {@code NAME.lock} file, so that
     * a read-merge-write of {@code target} by one process is never interleaved with another's (other processes wait).
     */
    public static <T> T withLock(Path target, Locked<T> action) throws IOException {
        Path file = target.toAbsolutePath();
        Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
        synchronized (LOCAL_LOCK) {
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 java.nio.channels.FileLock lock = channel.lock()) {
                return action.run();
            }
        }
    }

    private static final String TEMP_SUFFIX = ".tmp";

    private static String tempPrefix(Path target) {
        return "." + target.getFileName() + ".";
    }

    /** Deletes this target's temporary files left by writers that died; a file that cannot be removed stays. */
    private static void removeStaleTemps(Path target) {
        String prefix = tempPrefix(target);
        Instant cutoff = Instant.now().minus(STALE);
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(target.getParent(), p -> isTemp(p, prefix))) {
            for (Path temp : siblings) {
                try {
                    if (Files.getLastModifiedTime(temp).toInstant().isBefore(cutoff)) {
                        Files.deleteIfExists(temp);
                    }
                } catch (IOException e) {
                    // another process removed or holds it: leave it
                }
            }
        } catch (IOException e) {
            // the folder cannot be listed: the write itself succeeded, nothing to clean
        }
    }

    private static boolean isTemp(Path p, String prefix) {
        String name = p.getFileName().toString();
        if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) {
            return false;
        }
        String id = name.substring(prefix.length(), name.length() - TEMP_SUFFIX.length());
        return !id.isEmpty() && id.length() <= 16 && id.chars().allMatch(c -> Character.digit(c, 16) >= 0);
    }

    /** Makes the rename itself durable where the platform allows opening a folder; elsewhere this is a no-op. */
    private static void syncFolder(Path folder) {
        try (FileChannel dir = FileChannel.open(folder, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Windows cannot open folders as channels; the rename is still atomic there
        }
    }
}
