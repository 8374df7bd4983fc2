package saw.engine.io;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;

/**
 * Writing files so that a crash never leaves half of one: the content goes to a temporary file in the same folder,
 * is flushed and forced to disk, and then renamed over the target in one step.
 */
public final class AtomicFiles {
    private static final SecureRandom RANDOM = new SecureRandom();

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
        Path temp = folder.resolve("." + target.getFileName() + "." + Long.toHexString(RANDOM.nextLong()) + ".tmp");
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
