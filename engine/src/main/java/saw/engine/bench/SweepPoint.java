package saw.engine.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;

/**
 * One point of a sweep: a mask over the problem's sizes, compiled at one tile size, timed for one pass.
 * {@code varied} maps each swept JSON pointer to its value here; {@code density} is the requested block density of
 * a random-blocks point, else NaN.
 */
public record SweepPoint(String config, Map<String, Double> varied, double density, Mask mask, AttentionProblem problem,
                         KernelTiles tiles, Pass pass) {
    public SweepPoint {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(mask, "mask");
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(tiles, "tiles");
        Objects.requireNonNull(pass, "pass");
        varied = Collections.unmodifiableMap(new LinkedHashMap<>(varied));
    }

    /** The sizes the mask is bound to: the query heads, since every query head has its own attention pattern. */
    public Dims dims() {
        return new Dims(problem.seqQ(), problem.seqKv(), problem.batch(), problem.heads());
    }

    /** For progress lines: "causal left=256 S=8192 D=128 128x64 fwd". */
    public String label() {
        StringBuilder s = new StringBuilder(config);
        if (!varied.isEmpty()) {
            s.append(' ').append(varied.entrySet().stream()
                    .map(e -> lastToken(e.getKey()) + "=" + shortNumber(e.getValue()))
                    .collect(Collectors.joining(" ")));
        }
        if (!Double.isNaN(density)) {
            s.append(" density=").append(shortNumber(density));
        }
        return s.append(" S=").append(problem.seqQ()).append(" D=").append(problem.headDim()).append(' ').append(tiles)
                .append(' ').append(pass.label()).toString();
    }

    private static String lastToken(String pointer) {
        return pointer.substring(pointer.lastIndexOf('/') + 1);
    }

    static String shortNumber(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
