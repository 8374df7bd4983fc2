package saw.engine.attention;

/** Conversions between float and the 16-bit formats the kernels read (round to nearest even). */
public final class HalfFloats {
    private HalfFloats() {}

    /** The bits of {@code f} as bf16 or fp16. */
    public static short encode(DType type, float f) {
        return type == DType.BF16 ? toBf16(f) : toFp16(f);
    }

    public static float decode(DType type, short bits) {
        return type == DType.BF16 ? fromBf16(bits) : fromFp16(bits);
    }

    /** {@code f} rounded to the nearest value the type can hold. */
    public static float round(DType type, float f) {
        return decode(type, encode(type, f));
    }

    static short toBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7fffffff) > 0x7f800000) {
            return (short) ((bits >>> 16) | 0x40);  // quiet NaN
        }
        bits += 0x7fff + ((bits >>> 16) & 1);
        return (short) (bits >>> 16);
    }

    static float fromBf16(short b) {
        return Float.intBitsToFloat((b & 0xffff) << 16);
    }

    static short toFp16(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = (bits >>> 16) & 0x8000;
        int abs = bits & 0x7fffffff;
        if (abs > 0x7f800000) {
            return (short) (sign | 0x7e00);
        }
        if (abs >= 0x477ff000) {  // rounds to 65520 or more: infinity
            return (short) (sign | 0x7c00);
        }
        if (abs < 0x38800000) {  // below the smallest normal half: subnormal, rounded at 2^-24
            float scaled = Float.intBitsToFloat(abs) * 16777216f;  // exact: a power of two
            return (short) (sign | Math.round(Math.rint(scaled)));
        }
        int e = (abs >>> 23) - 127 + 15;
        int mant = abs & 0x7fffff;
        int h = (e << 10) | (mant >>> 13);
        int rest = mant & 0x1fff;
        if (rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1)) {
            h++;
        }
        return (short) (sign | h);
    }

    static float fromFp16(short b) {
        int h = b & 0xffff;
        int sign = (h & 0x8000) << 16;
        int e = (h >>> 10) & 0x1f;
        int mant = h & 0x3ff;
        if (e == 0) {
            float v = mant / 16777216f;
            return sign != 0 ? -v : v;
        }
        if (e == 31) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        return Float.intBitsToFloat(sign | ((e - 15 + 127) << 23) | (mant << 13));
    }
}
