package saw.engine.format;

import java.io.IOException;
import java.io.OutputStream;
import saw.engine.mask.TileLayout;

/**
 * One export format: a pure function from a compiled layout to the arrays another tool reads, written as JSON
 * (int32 values in nested row-major arrays). {@link LayoutFormats} lists them.
 */
public interface LayoutFormat {
    /** The name used on the command line: "flex", "ejkernel", "nsa", "dense". */
    String name();

    /** One line for people: what reads this format. */
    String description();

    /** An upper estimate of the bytes {@link #write} produces, for size guards before writing. */
    long estimateBytes(TileLayout layout);

    /**
     * Writes the layout in this format.
     *
     * @throws IllegalArgumentException when the layout cannot be written in this format (e.g. too large); the
     *     message says why and what limit applies
     */
    void write(TileLayout layout, OutputStream out) throws IOException;
}
