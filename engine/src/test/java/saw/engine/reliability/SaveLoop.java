package saw.engine.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import saw.engine.io.AtomicFiles;

/**
 * A child process for {@link SaveKillTest}: saves FILE over and over with AtomicFiles, each version SIZE bytes of one
 * letter (A, B, A, ...) between a header line and an END line, and prints each version's number once it is saved.
 */
public final class SaveLoop {
    private SaveLoop() {}

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        int size = Integer.parseInt(args[1]);
        for (int version = 0; ; version++) {
            byte[] body = new byte[size];
            Arrays.fill(body, (byte) (version % 2 == 0 ? 'A' : 'B'));
            int v = version;
            AtomicFiles.write(file, out -> {
                out.write(("version " + v + "\n").getBytes(StandardCharsets.US_ASCII));
                for (int at = 0; at < size; at += 1 << 16) {
                    out.write(body, at, Math.min(1 << 16, size - at));
                }
                out.write("\nEND\n".getBytes(StandardCharsets.US_ASCII));
            });
            System.out.println(version);
            System.out.flush();
        }
    }
}
