package saw.engine.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The rows of a results file as CSV (RFC 4180), for spreadsheets: the same columns as the JSON rows, in the same
 * order, with {@code varied} written as "pointer=value;pointer=value" and nulls as empty cells. Flushed per row.
 */
public final class ResultsCsv implements RowFile, AutoCloseable {
    private final Writer out;
    private boolean headerWritten;

    private ResultsCsv(Writer out) {
        this.out = out;
    }

    public static ResultsCsv create(Path file) throws IOException {
        return new ResultsCsv(new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.UTF_8)));
    }

    /** Writes every row of {@code rows} to {@code file}. */
    public static void write(Path file, List<BenchRow> rows) throws IOException {
        try (ResultsCsv csv = create(file)) {
            for (BenchRow r : rows) {
                csv.write(r);
            }
        }
    }

    @Override
    public void write(BenchRow row) throws IOException {
        Map<String, Object> fields = ResultsJson.flatten(row);
        if (!headerWritten) {
            out.write(String.join(",", fields.keySet()));
            out.write("\r\n");
            headerWritten = true;
        }
        List<String> cells = new ArrayList<>();
        for (Object v : fields.values()) {
            cells.add(cell(v));
        }
        out.write(String.join(",", cells));
        out.write("\r\n");
        out.flush();
    }

    private static String cell(Object v) {
        String s;
        if (v == null) {
            s = "";
        } else if (v instanceof Map<?, ?> m) {
            s = m.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";"));
        } else {
            s = v.toString();
        }
        if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
