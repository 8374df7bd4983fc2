package saw.engine.format;

import java.util.List;
import java.util.stream.Collectors;

/** The export formats saw knows, by name. */
public final class LayoutFormats {
    private static final List<LayoutFormat> ALL = List.of(new FlexFormat(), new EjKernelFormat(), new NsaFormat(), new DenseFormat());

    private LayoutFormats() {}

    public static List<LayoutFormat> all() {
        return ALL;
    }

    /**
     * The format called {@code name}.
     *
     * @throws IllegalArgumentException naming the known formats when there is none by that name
     */
    public static LayoutFormat byName(String name) {
        for (LayoutFormat f : ALL) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + name + "'; known formats: "
                + ALL.stream().map(LayoutFormat::name).collect(Collectors.joining(", ")));
    }
}
