package saw.engine.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Consumer;

/** Where rows are written one by one: as a row listener, an I/O failure is rethrown unchecked. */
interface RowFile extends Consumer<BenchRow> {
    /** Writes one row and flushes it. */
    void write(BenchRow row) throws IOException;

    /** {@link #write} for use as a row listener. */
    @Override
    default void accept(BenchRow row) {
        try {
            write(row);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
