package saw.engine.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@code saw.bench/1} file as read back: its header and every complete row. A last line cut short (the sweep was
 * killed while writing it) is dropped and reported in {@link #truncation}; a bad line anywhere else is an error.
 */
public record ResultsFile(String source, BenchEnvironment environment, List<BenchRow> rows, Optional<String> truncation) {
    public ResultsFile {
        rows = List.copyOf(rows);
    }

    public static ResultsFile read(Path file) throws BadResultsFile {
        String text;
        try {
            text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new BadResultsFile(file + ": no such file");
        } catch (IOException e) {
            throw new BadResultsFile(file + ": cannot be read (" + e.getMessage() + ")");
        }
        return parse(file.toString(), text);
    }

    /** Parses the text of a results file; {@code source} names it in messages. */
    public static ResultsFile parse(String source, String text) throws BadResultsFile {
        String[] lines = text.split("\n", -1);
        int last = lines.length - 1;
        while (last >= 0 && lines[last].isBlank()) {
            last--;
        }
        if (last < 0) {
            throw new BadResultsFile(source + ": empty file, expected a " + ResultsJson.SCHEMA + " header on line 1");
        }
        BenchEnvironment env = null;
        List<BenchRow> rows = new ArrayList<>();
        Optional<String> truncation = Optional.empty();
        for (int i = 0; i <= last; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            String where = source + " line " + (i + 1);
            JsonNode node;
            try {
                node = ResultsJson.MAPPER.readTree(lines[i]);
            } catch (JsonProcessingException e) {
                if (i == last && env != null) {
                    truncation = Optional.of(where + " is incomplete (the run stopped while writing it); kept the "
                            + rows.size() + " complete rows before it");
                    break;
                }
                throw new BadResultsFile(where + ": not a JSON object (" + e.getOriginalMessage() + ")");
            }
            if (node == null || !node.isObject()) {
                throw new BadResultsFile(where + ": not a JSON object");
            }
            if (env == null) {
                env = header(node, where);
            } else {
                rows.add(ResultsJson.row(node, where));
            }
        }
        if (env == null) {
            throw new BadResultsFile(source + ": no header line");
        }
        return new ResultsFile(source, env, rows, truncation);
    }

    /** One header line as it streams in (a remote run's stdout); {@code where} starts every message. */
    public static BenchEnvironment parseHeader(String line, String where) throws BadResultsFile {
        return header(object(line, where), where);
    }

    /** One row line as it streams in; {@code where} starts every message. */
    public static BenchRow parseRow(String line, String where) throws BadResultsFile {
        return ResultsJson.row(object(line, where), where);
    }

    private static JsonNode object(String line, String where) throws BadResultsFile {
        JsonNode node;
        try {
            node = ResultsJson.MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new BadResultsFile(where + ": not a JSON object (" + e.getOriginalMessage() + ")");
        }
        if (node == null || !node.isObject()) {
            throw new BadResultsFile(where + ": not a JSON object");
        }
        return node;
    }

    private static BenchEnvironment header(JsonNode node, String where) throws BadResultsFile {
        JsonNode schema = node.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new BadResultsFile(where + ": the first line must be the header with \"schema\": \"" + ResultsJson.SCHEMA + "\"");
        }
        String s = schema.asText();
        if (!s.equals(ResultsJson.SCHEMA)) {
            if (s.matches("saw\\.bench/[0-9]{1,9}") && Integer.parseInt(s.substring(10)) > 1) {
                throw new BadResultsFile(where + ": made by a newer saw (" + s + "); this saw reads " + ResultsJson.SCHEMA);
            }
            throw new BadResultsFile(where + ": schema is \"" + s + "\", not " + ResultsJson.SCHEMA);
        }
        return ResultsJson.environment(node, where);
    }

    /** Rows whose status is "ok". */
    public List<BenchRow> okRows() {
        return rows.stream().filter(BenchRow::ok).toList();
    }
}
