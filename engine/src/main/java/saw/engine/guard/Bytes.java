package saw.engine.guard;

import java.util.Locale;

/** Byte counts for people: "512 B", "12.0 KiB", "1.5 GiB". */
final class Bytes {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private Bytes() {}

    static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        int unit = (63 - Long.numberOfLeadingZeros(bytes)) / 10;
        return String.format(Locale.ROOT, "%.1f %s", bytes / (double) (1L << (10 * unit)), UNITS[unit]);
    }

    /** a + b, stopping at Long.MAX_VALUE instead of wrapping. */
    static long add(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
    }

    /** a * b for a, b >= 0, stopping at Long.MAX_VALUE instead of wrapping. */
    static long times(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
    }
}
