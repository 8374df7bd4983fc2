package saw.engine.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import saw.engine.io.AtomicFiles;

/**
 * Writes arrays in NumPy's .npy format, version 1.0: the magic "\x93NUMPY", the version bytes 1 0, a little-endian
 * uint16 header length, a Python dict literal {'descr', 'fortran_order', 'shape'} padded with spaces and ended by a
 * newline so the data starts at a multiple of 64 bytes, then the elements little-endian in C (row-major) order.
 * Files are written atomically.
 */
public final class Npy {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    private static final int ALIGN = 64;

    private Npy() {}

    public static void writeFloat32(Path file, int[] shape, float[] data) throws IOException {
        checkSize(shape, data.length);
        AtomicFiles.write(file, out -> {
            out.write(header("<f4", shape));
            ByteBuffer buf = ByteBuffer.allocate(4 << 12).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : data) {
                if (!buf.hasRemaining()) {
                    out.write(buf.array(), 0, buf.position());
                    buf.clear();
                }
                buf.putFloat(v);
            }
            out.write(buf.array(), 0, buf.position());
        });
    }

    public static void writeInt32(Path file, int[] shape, int[] data) throws IOException {
        checkSize(shape, data.length);
        AtomicFiles.write(file, out -> {
            out.write(header("<i4", shape));
            ByteBuffer buf = ByteBuffer.allocate(4 << 12).order(ByteOrder.LITTLE_ENDIAN);
            for (int v : data) {
                if (!buf.hasRemaining()) {
                    out.write(buf.array(), 0, buf.position());
                    buf.clear();
                }
                buf.putInt(v);
            }
            out.write(buf.array(), 0, buf.position());
        });
    }

    /** The magic, version, length and padded dict for an array of this type and shape. */
    static byte[] header(String descr, int[] shape) {
        StringBuilder dims = new StringBuilder("(");
        for (int i = 0; i < shape.length; i++) {
            dims.append(shape[i]).append(i == 0 && shape.length == 1 ? "," : i + 1 < shape.length ? ", " : "");
        }
        dims.append(')');
        StringBuilder dict = new StringBuilder("{'descr': '").append(descr).append("', 'fortran_order': False, 'shape': ")
                .append(dims).append(", }");
        int unpadded = MAGIC.length + 2 + dict.length() + 1;
        int padding = (ALIGN - unpadded % ALIGN) % ALIGN;
        dict.append(" ".repeat(padding)).append('\n');
        byte[] text = dict.toString().getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 2 + text.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).putShort((short) text.length).put(text);
        return b.array();
    }

    private static void checkSize(int[] shape, int length) {
        long n = 1;
        for (int d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + java.util.Arrays.toString(shape));
            }
            n *= d;
        }
        if (n != length) {
            throw new IllegalArgumentException("shape " + java.util.Arrays.toString(shape) + " holds " + n
                    + " elements but the data has " + length);
        }
    }
}
