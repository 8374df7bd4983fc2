package saw.engine.config;

/**
 * One thing wrong with a config: the JSON pointer of the value at fault ("" for the whole document), its line and
 * column (1-based; 0 when the problem has no place in the text, e.g. a missing file) and a sentence a user can act on.
 */
public record ConfigProblem(String path, int line, int column, String message) {
    /** "config.json:12:9: /mask/causal/offset: message", leaving out the parts that are unknown. */
    public String format(String source) {
        StringBuilder s = new StringBuilder(source);
        if (line > 0) {
            s.append(':').append(line).append(':').append(column);
        }
        s.append(": ");
        if (!path.isEmpty()) {
            s.append(path).append(": ");
        }
        return s.append(message).toString();
    }
}
