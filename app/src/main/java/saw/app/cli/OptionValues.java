package saw.app.cli;

import java.util.ArrayList;
import java.util.List;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;

/** Option values read as engine values; a value that does not read is bad input that names its option. */
final class OptionValues {
    private OptionValues() {}

    /** Each of {@code values} (blanks around it ignored) as a pass, in order. */
    static List<Pass> passes(String option, List<String> values) {
        List<Pass> out = new ArrayList<>();
        for (String v : values) {
            try {
                out.add(Pass.parse(v.trim()));
            } catch (IllegalArgumentException e) {
                throw new BadInput(option + ": " + e.getMessage());
            }
        }
        return out;
    }

    /** The value of {@code --dtype}. */
    static DType dtype(String value) {
        try {
            return DType.parse(value);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--dtype: " + e.getMessage());
        }
    }
}
