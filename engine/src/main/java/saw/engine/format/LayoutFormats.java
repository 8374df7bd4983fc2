package saw.engine.format;

import java.util.List;
import java.util.stream.Collectors;

/** The export formats saw knows, by name. */
public final class LayoutFormats {
    private static final List<LayoutFormat> ALL = List.of(new FlexFormat(), new EjKernelFormat(), new NsaFormat(), new DenseFormat());

    private LayoutFormats() {}

    /**
     * The kv-blocks (of the layout's kv block size) each query token of mask variant {@code variant} attends, ascending:
     * the rows of the nsa export, for code that runs the selection rather than writing it.
     */
    public static int[][] nsaBlocks(saw.engine.mask.TileLayout layout, int variant) {
        return NsaFormat.blocksOf(layout, variant);
    }

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
