package saw.engine.nsa;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads an integer .npy file (int32 or int64, little-endian, C order) into an int array and its shape. */
final class NpyInts {
    private static final Pattern DESCR = Pattern.compile("'descr':\\s*'([^']*)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order':\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape':\\s*\\(([^)]*)\\)");

    final int[] shape;
    final int[] data;

    private NpyInts(int[] shape, int[] data) {
        this.shape = shape;
        this.data = data;
    }

    static NpyInts read(Path file, String field) throws BadSelection {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new BadSelection(field + ": cannot read " + file + " (" + e.getMessage() + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < 10 || (bytes[0] & 0xff) != 0x93 || bytes[1] != 'N' || bytes[2] != 'U' || bytes[3] != 'M'
                || bytes[4] != 'P' || bytes[5] != 'Y') {
            throw new BadSelection(field + ": " + file + " is not a .npy file (no \\x93NUMPY magic)");
        }
        int major = bytes[6];
        int headerLen;
        int start;
        if (major == 1) {
            headerLen = b.getShort(8) & 0xffff;
            start = 10;
        } else if ((major == 2 || major == 3) && bytes.length >= 12) {
            headerLen = b.getInt(8);
            start = 12;
        } else {
            throw new BadSelection(field + ": " + file + " has .npy version " + major + " (1, 2 or 3 are read)");
        }
        if (headerLen < 0 || start + headerLen > bytes.length) {
            throw new BadSelection(field + ": " + file + " has a truncated header");
        }
        String header = new String(bytes, start, headerLen, StandardCharsets.ISO_8859_1);
        Matcher d = DESCR.matcher(header);
        Matcher f = FORTRAN.matcher(header);
        Matcher s = SHAPE.matcher(header);
        if (!d.find() || !f.find() || !s.find()) {
            throw new BadSelection(field + ": " + file + " has a header without descr, fortran_order or shape");
        }
        if (f.group(1).equals("True")) {
            throw new BadSelection(field + ": " + file + " is in Fortran order; save it C-contiguous");
        }
        int width;
        switch (d.group(1)) {
            case "<i4": width = 4; break;
            case "<i8": width = 8; break;
            default:
                throw new BadSelection(field + ": " + file + " holds '" + d.group(1) + "'; int32 (<i4) or int64 (<i8) is read");
        }
        String[] dims = s.group(1).split(",");
        int rank = 0;
        int[] shape = new int[dims.length];
        long n = 1;
        for (String dim : dims) {
            if (dim.isBlank()) {
                continue;
            }
            try {
                shape[rank] = Integer.parseInt(dim.trim());
            } catch (NumberFormatException e) {
                throw new BadSelection(field + ": " + file + " has a bad shape (" + s.group(1) + ")");
            }
            n *= shape[rank++];
        }
        int[] sh = java.util.Arrays.copyOf(shape, rank);
        int dataStart = start + headerLen;
        if (n > Integer.MAX_VALUE - 16 || dataStart + n * width != bytes.length) {
            throw new BadSelection(field + ": " + file + " holds " + (bytes.length - dataStart) + " data bytes, shape "
                    + java.util.Arrays.toString(sh) + " needs " + n * width);
        }
        int[] out = new int[(int) n];
        for (int i = 0; i < out.length; i++) {
            if (width == 4) {
                out[i] = b.getInt(dataStart + 4 * i);
            } else {
                long v = b.getLong(dataStart + 8 * i);
                if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                    throw new BadSelection(field + ": element " + i + " of " + file + " (" + v + ") does not fit in 32 bits");
                }
                out[i] = (int) v;
            }
        }
        return new NpyInts(sh, out);
    }
}
