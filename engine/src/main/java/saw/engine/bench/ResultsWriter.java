package saw.engine.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import saw.engine.io.AtomicFiles;

/**
 * Writes a {@code saw.bench/1} file as JSON Lines: the environment header on line 1, then one row per line, each
 * line flushed as soon as it is written, so a sweep killed at any moment leaves every finished row readable.
 */
public final class ResultsWriter implements RowFile, AutoCloseable {
    private final Writer out;

    private ResultsWriter(Writer out) {
        this.out = out;
    }

    /**
     * Creates (or replaces) {@code file} holding the header, atomically, so that a sweep killed at any moment leaves
     * either the old file or one with the whole header; rows are then appended.
     */
    public static ResultsWriter create(Path file, BenchEnvironment env) throws IOException {
        byte[] header = (ResultsJson.MAPPER.writeValueAsString(ResultsJson.header(env)) + "\n").getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(file, out -> out.write(header));
        return new ResultsWriter(new BufferedWriter(new OutputStreamWriter(
                Files.newOutputStream(file, StandardOpenOption.APPEND), StandardCharsets.UTF_8)));
    }

    /** Writes the header and then the rows to {@code out} (e.g. standard output); closing closes {@code out}. */
    public static ResultsWriter to(Writer out, BenchEnvironment env) throws IOException {
        ResultsWriter w = new ResultsWriter(out);
        w.writeLine(ResultsJson.MAPPER.writeValueAsString(ResultsJson.header(env)));
        return w;
    }

    /**
     * Opens an existing results file to append rows after its last complete line; a last line cut short (a run
     * killed while writing it) is cut off first, so the appended rows start on a line of their own.
     */
    public static ResultsWriter append(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
            end--;
        }
        if (end < bytes.length) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(end);
            }
        }
        return new ResultsWriter(new BufferedWriter(new OutputStreamWriter(
                Files.newOutputStream(file, StandardOpenOption.APPEND), StandardCharsets.UTF_8)));
    }

    /** Appends one row and flushes it to the file. */
    @Override
    public void write(BenchRow row) throws IOException {
        writeLine(line(row));
    }

    /**
     * Appends one row with fields of its own after the standard ones (readers ignore fields they do not know), e.g.
     * a ring run's per-GPU times; a name that clashes with a standard field is refused.
     */
    public void write(BenchRow row, java.util.Map<String, ?> extra) throws IOException {
        java.util.Map<String, Object> fields = ResultsJson.flatten(row);
        for (String name : extra.keySet()) {
            if (fields.containsKey(name)) {
                throw new IllegalArgumentException("extra field '" + name + "' would replace a standard row field");
            }
        }
        fields.putAll(extra);
        writeLine(ResultsJson.MAPPER.writeValueAsString(fields));
    }

    /** One row as its JSON line (no newline). */
    public static String line(BenchRow row) {
        try {
            return ResultsJson.MAPPER.writeValueAsString(ResultsJson.flatten(row));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a results row could not be encoded", e);
        }
    }

    private void writeLine(String json) throws IOException {
        out.write(json);
        out.write('\n');
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
