package saw.engine.config;

import java.util.Arrays;
import saw.engine.mask.IntArray;

/**
 * The text form of one painted row: kv-block indices and inclusive ranges, comma-separated ("0-3,7"; "" for none).
 * Order and repeats do not matter when reading; writing gives ascending indices with runs of two or more as ranges.
 */
final class CellRanges {
    /** No sequence has more kv-blocks than this (2^24 tokens in blocks of 16). */
    static final int MAX_INDEX = (1 << 20) - 1;

    private CellRanges() {}

    /**
     * Parses one row; {@code budget} is the most indices it may expand to.
     *
     * @throws IllegalArgumentException with a sentence naming the part that is wrong
     */
    static int[] parse(String text, long budget) {
        if (text.isEmpty()) {
            return new int[0];
        }
        int[] out = new int[8];
        int n = 0;
        for (String part : text.split(",", -1)) {
            int dash = part.indexOf('-');
            int from = index(dash < 0 ? part : part.substring(0, dash), part);
            int to = dash < 0 ? from : index(part.substring(dash + 1), part);
            if (to < from) {
                throw new IllegalArgumentException("range \"" + part + "\" runs backwards; write it as \"" + to + "-" + from + "\"");
            }
            if (n + (long) (to - from + 1) > budget) {
                throw new IllegalArgumentException("expands to more kv-block indices than the config may hold");
            }
            for (int v = from; v <= to; v++) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, out.length * 2);
                }
                out[n++] = v;
            }
        }
        return Arrays.copyOf(out, n);
    }

    private static int index(String digits, String part) {
        if (digits.isEmpty() || digits.length() > 7 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("\"" + abbreviate(part) + "\" is not a kv-block index or a range a-b"
                    + " (cells look like \"0-3,7\")");
        }
        int v = Integer.parseInt(digits);
        if (v > MAX_INDEX) {
            throw new IllegalArgumentException("kv-block index " + v + " is past " + MAX_INDEX + ", more blocks than any sequence has");
        }
        return v;
    }

    private static String abbreviate(String s) {
        return s.length() <= 24 ? s : s.substring(0, 24) + "...";
    }

    /** The row {@code blocks} (ascending, distinct) as text. */
    static String format(IntArray blocks) {
        StringBuilder s = new StringBuilder();
        int i = 0;
        while (i < blocks.size()) {
            int start = blocks.get(i);
            int end = start;
            while (i + 1 < blocks.size() && blocks.get(i + 1) == end + 1) {
                end++;
                i++;
            }
            i++;
            if (s.length() > 0) {
                s.append(',');
            }
            s.append(start);
            if (end > start) {
                s.append('-').append(end);
            }
        }
        return s.toString();
    }
}
