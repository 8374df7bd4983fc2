package saw.engine.format;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import java.io.IOException;
import java.io.OutputStream;
import saw.engine.mask.Dims;
import saw.engine.mask.TileLayout;

/**
 * What every format's JSON shares: a streaming generator that puts each top-level key on its own line, the
 * {@code "saw"} header that loaders ignore, {@code block_size} and {@code seq_lengths}, and size estimates.
 */
final class FormatJson {
    /** The largest output a format writes before refusing; formats whose size has a natural limit use that instead. */
    static final long MAX_BYTES = 2L << 30;
    /** Room for the header, the key names and the line breaks. */
    static final long HEADER_BYTES = 1024;

    private static final JsonFactory FACTORY = JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    private FormatJson() {}

    /** Opens the root object and writes the header; the caller writes its arrays and then calls {@link #end}. */
    static JsonGenerator begin(OutputStream out, String schema, TileLayout layout) throws IOException {
        JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8);
        g.setPrettyPrinter(new TopLevelLines());
        Dims dims = layout.dims();
        g.writeStartObject();
        g.writeObjectFieldStart("saw");
        g.writeStringField("format", schema);
        g.writeNumberField("seq_len_q", dims.seqQ());
        g.writeNumberField("seq_len_kv", dims.seqKv());
        g.writeNumberField("batch", dims.batch());
        g.writeNumberField("heads", dims.heads());
        g.writeNumberField("block_q", layout.blockQ());
        g.writeNumberField("block_kv", layout.blockKv());
        g.writeEndObject();
        g.writeFieldName("block_size");
        g.writeArray(new int[] {layout.blockQ(), layout.blockKv()}, 0, 2);
        g.writeFieldName("seq_lengths");
        g.writeArray(new int[] {dims.seqQ(), dims.seqKv()}, 0, 2);
        return g;
    }

    /** Closes the root object and flushes; the output stream stays open. */
    static void end(JsonGenerator g) throws IOException {
        g.writeEndObject();
        g.writeRaw('\n');
        g.close();
    }

    /**
     * Writes the [B][H] levels of an array ({@link Extents}: 1 where the mask does not vary), letting {@code inner}
     * write each entry's contents for the variant that batch entry and head use.
     */
    static void perBatchAndHead(JsonGenerator g, TileLayout layout, VariantWriter inner) throws IOException {
        Extents e = Extents.of(layout);
        g.writeStartArray();
        for (int b = 0; b < e.batch(); b++) {
            g.writeStartArray();
            for (int h = 0; h < e.heads(); h++) {
                inner.write(layout.mask().variantOf(b, h));
            }
            g.writeEndArray();
        }
        g.writeEndArray();
    }

    interface VariantWriter {
        void write(int variant) throws IOException;
    }

    /** Refuses a layout whose output would pass {@link #MAX_BYTES}. */
    static void checkSize(LayoutFormat format, TileLayout layout) {
        long bytes = format.estimateBytes(layout);
        if (bytes > MAX_BYTES) {
            Dims d = layout.dims();
            throw new IllegalArgumentException("the " + format.name() + " export of this " + d.seqQ() + " x " + d.seqKv()
                    + " mask with " + layout.blockQ() + "x" + layout.blockKv() + " blocks would take up to " + megabytes(bytes)
                    + " MB, over the " + megabytes(MAX_BYTES) + " MB limit; use larger blocks or shorter sequences");
        }
    }

    /** Characters JSON needs for the widest int in [min, max]. */
    static int width(long min, long max) {
        return Math.max(Long.toString(min).length(), Long.toString(max).length());
    }

    /**
     * An upper estimate for a nested int array of this shape whose values take at most {@code width} characters:
     * brackets and a comma per inner array, a comma per value.
     */
    static long arrayBytes(int width, long... shape) {
        long bytes = 2;
        long count = 1;
        for (int k = 0; k < shape.length; k++) {
            count *= shape[k];
            bytes += count * (k == shape.length - 1 ? width + 1 : 3);
        }
        return bytes;
    }

    private static long megabytes(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }

    /** Compact output with a line break after the root's opening brace and after each of its entries. */
    private static final class TopLevelLines extends MinimalPrettyPrinter {
        private static final long serialVersionUID = 1L;
        private int depth;

        @Override
        public void writeStartObject(JsonGenerator g) throws IOException {
            super.writeStartObject(g);
            if (++depth == 1) {
                g.writeRaw('\n');
            }
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
            super.writeObjectEntrySeparator(g);
            if (depth == 1) {
                g.writeRaw('\n');
            }
        }

        @Override
        public void writeEndObject(JsonGenerator g, int entries) throws IOException {
            if (depth-- == 1) {
                g.writeRaw('\n');
            }
            super.writeEndObject(g, entries);
        }
    }
}
