package saw.engine.bench;

import java.util.ArrayList;
import java.util.List;

/** One swept config field: a JSON pointer into the config ("/mask/and/1/sliding_window/left") and its values. */
public record Vary(String pointer, List<Double> values) {
    public Vary {
        values = List.copyOf(values);
        if (!pointer.startsWith("/")) {
            throw new IllegalArgumentException("--vary pointer '" + pointer + "' must start with '/', e.g. /mask/causal/offset");
        }
        if (values.isEmpty()) {
            throw new IllegalArgumentException("--vary " + pointer + " needs at least one value");
        }
    }

    /**
     * Parses "POINTER=v1,v2,...".
     *
     * @throws IllegalArgumentException naming the text and what is expected
     */
    public static Vary parse(String text) {
        int eq = text.lastIndexOf('=');
        if (eq <= 0 || eq == text.length() - 1) {
            throw new IllegalArgumentException("--vary '" + text + "' is not of the form JSON_POINTER=v1,v2,... "
                    + "(e.g. /mask/and/1/sliding_window/left=256,1024)");
        }
        String pointer = text.substring(0, eq).trim();
        List<Double> values = new ArrayList<>();
        for (String v : text.substring(eq + 1).split(",", -1)) {
            try {
                double d = Double.parseDouble(v.trim());
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new NumberFormatException();
                }
                values.add(d);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--vary " + pointer + ": '" + v.trim() + "' is not a number");
            }
        }
        return new Vary(pointer, values);
    }
}
