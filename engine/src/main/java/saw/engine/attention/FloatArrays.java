package saw.engine.attention;

import java.nio.FloatBuffer;
import java.util.Arrays;

/** The host-array steps the backends share: a tensor view copied out, an output array filled with NaN. */
public final class FloatArrays {
    private FloatArrays() {}

    /** The remaining elements of {@code b} in a new array ({@code b}'s position is left as it was). */
    public static float[] copyOf(FloatBuffer b) {
        float[] a = new float[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    /** {@code n} NaNs: an output array whose elements show where nothing was written. */
    public static float[] nan(int n) {
        float[] a = new float[n];
        Arrays.fill(a, Float.NaN);
        return a;
    }
}
