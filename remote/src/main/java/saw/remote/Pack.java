package saw.remote;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * The GPU pack (the folder bench/gpu-pack.sh builds: a jlink'd Java, the headless jars and the {@code saw}
 * launcher) as it is uploaded: one gzipped tar with sorted entries and no timestamps, so the same folder always
 * gives the same bytes, and its SHA-256, which names the folder it is unpacked into on the remote and is checked
 * there after the upload.
 *
 * @param commit the commit the pack was built from, as its launcher records it ("unknown" when it does not)
 */
public record Pack(Path folder, byte[] archive, String sha256, String commit) {
    /** Packs above this are refused: the upload has to stay quick on an ordinary link. */
    public static final long MAX_BYTES = 64L << 20;
    /** Where the desktop build keeps the pack: a folder of this name beside saw.jar. */
    public static final String FOLDER_BESIDE_JAR = "gpupack";
    private static final Pattern COMMIT = Pattern.compile("SAW_GIT_COMMIT=\\$\\{SAW_GIT_COMMIT:-([^}]*)}");

    public Pack {
        archive = archive.clone();
    }

    @Override
    public byte[] archive() {
        return archive.clone();
    }

    int size() {
        return archive.length;
    }

    /** The name of its folder under ~/.cache/saw on the remote. */
    public String stamp() {
        return "pack-" + sha256.substring(0, 16);
    }

    /** Reads and archives a pack folder; the message names what is missing or too large. */
    public static Pack of(Path folder) throws RemoteException {
        Path launcher = folder.resolve("saw");
        if (!Files.isRegularFile(launcher)) {
            throw new RemoteException(RemoteException.Kind.NO_SAW, folder + " is not a saw GPU pack (no 'saw' launcher in it);"
                    + " build one with bench/gpu-pack.sh " + folder);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 20);
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes, 1 << 16)) {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(folder)) {
                files = walk.filter(p -> !p.equals(folder)).sorted().toList();
            }
            for (Path p : files) {
                String name = folder.relativize(p).toString().replace('\\', '/');
                if (Files.isDirectory(p)) {
                    Tar.entry(gz, name + "/", 0755, new byte[0], true);
                } else {
                    Tar.entry(gz, name, Files.isExecutable(p) ? 0755 : 0644, Files.readAllBytes(p), false);
                }
                if (bytes.size() > MAX_BYTES) {
                    break;
                }
            }
            Tar.end(gz);
        } catch (IOException e) {
            throw new RemoteException(RemoteException.Kind.NO_SAW, "cannot read the pack " + folder + ": " + e.getMessage(), e);
        }
        if (bytes.size() > MAX_BYTES) {
            throw new RemoteException(RemoteException.Kind.FAILED, "the pack " + folder + " is over " + (MAX_BYTES >> 20)
                    + " MiB compressed; build it without SAW_PACK_CHARTS");
        }
        byte[] archive = bytes.toByteArray();
        String commit = "unknown";
        try {
            Matcher m = COMMIT.matcher(Files.readString(launcher, StandardCharsets.UTF_8));
            if (m.find()) {
                commit = m.group(1);
            }
        } catch (IOException e) {
            // the commit is only shown; the checksum is what identifies the pack
        }
        return new Pack(folder, archive, sha256(archive), commit);
    }

    /**
     * The pack to upload: the system property {@code saw.pack} or else {@code SAW_PACK} (a folder; blank for
     * none) when set, else the {@value #FOLDER_BESIDE_JAR} folder beside the
     * jar saw runs from; empty when neither exists.
     */
    public static Optional<Path> locate() {
        String set = System.getProperty("saw.pack", System.getenv("SAW_PACK"));
        if (set != null) {
            return set.isBlank() ? Optional.empty() : Optional.of(Path.of(set));
        }
        try {
            Path code = Path.of(Pack.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path beside = (Files.isDirectory(code) ? code : code.getParent()).resolve(FOLDER_BESIDE_JAR);
            return Files.isRegularFile(beside.resolve("saw")) ? Optional.of(beside) : Optional.empty();
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            return Optional.empty();
        }
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java", e);
        }
    }

    /** The ustar entries the remote's {@code tar -xzf} reads: name, mode and size; owner and time left zero. */
    private static final class Tar {
        private Tar() {}

        static void entry(OutputStream out, String name, int mode, byte[] data, boolean dir) throws IOException {
            byte[] h = new byte[512];
            byte[] n = name.getBytes(StandardCharsets.UTF_8);
            if (n.length <= 100) {
                System.arraycopy(n, 0, h, 0, n.length);
            } else {
                int cut = name.lastIndexOf('/', Math.min(name.length() - 2, 155));
                byte[] prefix = name.substring(0, Math.max(cut, 0)).getBytes(StandardCharsets.UTF_8);
                byte[] rest = name.substring(cut + 1).getBytes(StandardCharsets.UTF_8);
                if (cut <= 0 || prefix.length > 155 || rest.length > 100) {
                    throw new IOException("the path " + name + " is too long for the pack archive");
                }
                System.arraycopy(rest, 0, h, 0, rest.length);
                System.arraycopy(prefix, 0, h, 345, prefix.length);
            }
            octal(h, 100, 8, mode);
            octal(h, 108, 8, 0);
            octal(h, 116, 8, 0);
            octal(h, 124, 12, data.length);
            octal(h, 136, 12, 0);
            h[156] = (byte) (dir ? '5' : '0');
            System.arraycopy("ustar\0".getBytes(StandardCharsets.US_ASCII), 0, h, 257, 6);
            h[263] = '0';
            h[264] = '0';
            for (int i = 148; i < 156; i++) {
                h[i] = ' ';
            }
            int sum = 0;
            for (byte b : h) {
                sum += b & 0xff;
            }
            octal(h, 148, 7, sum);
            h[155] = ' ';
            out.write(h);
            out.write(data);
            int pad = (512 - data.length % 512) % 512;
            out.write(new byte[pad]);
        }

        static void end(OutputStream out) throws IOException {
            out.write(new byte[1024]);
        }

        private static void octal(byte[] h, int at, int width, long value) {
            String s = Long.toOctalString(value);
            if (s.length() > width - 1) {
                throw new IllegalArgumentException("value " + value + " does not fit a tar header field");
            }
            String padded = "0".repeat(width - 1 - s.length()) + s;
            byte[] b = padded.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(b, 0, h, at, b.length);
            h[at + width - 1] = 0;
        }
    }

}
