package saw.engine.mask;

import java.util.Arrays;

/** An immutable array of ints with value equality; what mask records hold instead of {@code int[]}. */
public final class IntArray {
    private static final IntArray EMPTY = new IntArray(new int[0]);
    private final int[] values;

    private IntArray(int[] values) {
        this.values = values;
    }

    public static IntArray of(int... values) {
        return values.length == 0 ? EMPTY : new IntArray(values.clone());
    }

    public static IntArray range(int from, int to) {
        int[] v = new int[Math.max(0, to - from)];
        for (int i = 0; i < v.length; i++) {
            v[i] = from + i;
        }
        return new IntArray(v);
    }

    public int size() {
        return values.length;
    }

    public int get(int index) {
        return values[index];
    }

    public boolean isEmpty() {
        return values.length == 0;
    }

    /** A copy; callers may change it freely. */
    public int[] toArray() {
        return values.clone();
    }

    public long sum() {
        long s = 0;
        for (int v : values) {
            s += v;
        }
        return s;
    }

    public boolean isStrictlyIncreasing() {
        for (int i = 1; i < values.length; i++) {
            if (values[i] <= values[i - 1]) {
                return false;
            }
        }
        return true;
    }

    public IntArray sortedDistinct() {
        return new IntArray(Arrays.stream(values).sorted().distinct().toArray());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IntArray other && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        if (values.length > 16) {
            return "[" + values[0] + ", " + values[1] + ", ... (" + values.length + " values)]";
        }
        return Arrays.toString(values);
    }
}
