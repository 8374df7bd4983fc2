package saw.engine.attention;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Relative error ||out - ref|| / ||ref|| of each output against a reference. Elements where the reference is NaN
 * were not computed by it (sampled heads) and are skipped; NaN in the checked output counts everywhere, since
 * outputs are poisoned with NaN before a launch and every element must be written.
 */
public final class OutputComparison {
    private OutputComparison() {}

    /**
     * The error of one output.
     *
     * @param relError relative error over the compared elements (infinite when an infinity does not match)
     * @param nans NaN elements in the output, over all elements
     * @param compared elements compared with the reference
     */
    public record Error(AttentionOutputs.Output output, double relError, long nans, long compared) {
        public boolean passes(double tolerance) {
            return nans == 0 && relError <= tolerance;
        }
    }

    /** One entry per output the kernel produced (gradients only when it ran backward). */
    public static List<Error> compare(AttentionOutputs got, AttentionOutputs ref) {
        List<Error> out = new ArrayList<>();
        for (AttentionOutputs.Output o : AttentionOutputs.Output.values()) {
            if (o.isGradient() && !got.hasGradients()) {
                continue;
            }
            if (o == AttentionOutputs.Output.DSINK && got.get(o).remaining() == 0 && ref.get(o).remaining() == 0) {
                continue; // no sinks in this problem
            }
            out.add(o == AttentionOutputs.Output.DSINK && ref.dsinkScale().remaining() == ref.get(o).remaining()
                    ? compareScaled(got.get(o), ref.get(o), ref.dsinkScale()) : compare(o, got.get(o), ref.get(o)));
        }
        return out;
    }

    /**
     * dSink against a reference that gives its terms' scale: ||out - ref|| / ||scale||, the error relative to the
     * sum of the terms' magnitudes (an error of relative size e in every term moves dSink by at most e times that).
     * The scale is at least |ref| per head, so this never fails where the plain relative error passes.
     */
    static Error compareScaled(FloatBuffer got, FloatBuffer ref, FloatBuffer scale) {
        Error plain = compare(AttentionOutputs.Output.DSINK, got, ref);
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < got.remaining(); i++) {
            float g = got.get(i);
            float r = ref.get(i);
            if (Float.isNaN(g) || Float.isNaN(r) || Float.isInfinite(g) || Float.isInfinite(r)) {
                continue;
            }
            diff += (double) (g - r) * (g - r);
            norm += (double) scale.get(i) * scale.get(i);
        }
        if (Double.isInfinite(plain.relError()) || norm == 0) {
            return plain;
        }
        return new Error(AttentionOutputs.Output.DSINK, Math.sqrt(diff / norm), plain.nans(), plain.compared());
    }

    static Error compare(AttentionOutputs.Output which, FloatBuffer got, FloatBuffer ref) {
        if (got.remaining() != ref.remaining()) {
            throw new IllegalArgumentException(which.label() + ": " + got.remaining() + " elements against a reference of "
                    + ref.remaining());
        }
        double diff = 0;
        double norm = 0;
        long nans = 0;
        long compared = 0;
        boolean infMismatch = false;
        for (int i = 0; i < got.remaining(); i++) {
            float g = got.get(i);
            float r = ref.get(i);
            if (Float.isNaN(g)) {
                nans++;
                continue;
            }
            if (Float.isNaN(r)) {
                continue;
            }
            compared++;
            if (Float.isInfinite(r) || Float.isInfinite(g)) {
                infMismatch |= g != r;
                continue;
            }
            diff += (double) (g - r) * (g - r);
            norm += (double) r * r;
        }
        double rel = infMismatch ? Double.POSITIVE_INFINITY : norm > 0 ? Math.sqrt(diff / norm) : Math.sqrt(diff);
        return new Error(which, rel, nans, compared);
    }
}
