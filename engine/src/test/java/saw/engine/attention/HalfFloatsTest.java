package saw.engine.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HalfFloatsTest {
    @Test
    void everyNonNanBitPatternSurvivesDecodeThenEncode() {
        for (DType t : DType.values()) {
            for (int b = 0; b < 65536; b++) {
                float f = HalfFloats.decode(t, (short) b);
                if (!Float.isNaN(f)) {
                    assertEquals((short) b, HalfFloats.encode(t, f), t + " bits " + Integer.toHexString(b));
                }
            }
        }
    }

    @Test
    void knownValuesDecodeExactly() {
        assertEquals(1.0f, HalfFloats.decode(DType.FP16, (short) 0x3c00));
        assertEquals(65504f, HalfFloats.decode(DType.FP16, (short) 0x7bff));
        assertEquals(0x1p-24f, HalfFloats.decode(DType.FP16, (short) 0x0001));
        assertEquals(-2.0f, HalfFloats.decode(DType.BF16, (short) 0xc000));
        assertEquals(Float.POSITIVE_INFINITY, HalfFloats.round(DType.FP16, 65520f));
        assertEquals(65504f, HalfFloats.round(DType.FP16, 65519f));
    }

    @Test
    void roundingPicksTheNearestValueAndTiesGoToEven() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (DType t : DType.values()) {
            for (int n = 0; n < 200_000; n++) {
                float x = (float) ((rnd.nextDouble() * 2 - 1) * Math.pow(2, rnd.nextInt(30) - 20));
                short b = HalfFloats.encode(t, x);
                double err = Math.abs((double) HalfFloats.decode(t, b) - x);
                // neighbours in bit order, plus the smallest values of either sign (the neighbours of +-0)
                for (int c : new int[] {b - 1, b + 1, 0x0001, 0x8001}) {
                    float other = HalfFloats.decode(t, (short) c);
                    if (!Float.isNaN(other)) {
                        assertTrue(err <= Math.abs((double) other - x), t + " " + x + " -> " + HalfFloats.decode(t, b)
                                + " but " + other + " is nearer");
                    }
                }
            }
            // 1 + half an ulp of the type is a tie between 1 (even) and the next value
            float halfUlp = t == DType.BF16 ? 0x1p-8f : 0x1p-11f;
            assertEquals(1.0f, HalfFloats.round(t, 1 + halfUlp));
            assertEquals(1 + 4 * halfUlp, HalfFloats.round(t, 1 + 3 * halfUlp));
        }
    }
}
