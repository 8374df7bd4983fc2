package saw.engine.config;

import java.util.List;
import java.util.stream.Collectors;

/** A config that could not be loaded: where it came from and every problem found, in document order. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String source;
    private final transient List<ConfigProblem> problems;

    public ConfigException(String source, List<ConfigProblem> problems) {
        super(null, null, false, false);
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        this.source = source;
        this.problems = List.copyOf(problems);
    }

    /** A problem with the source as a whole (a missing file, an unknown preset). */
    public static ConfigException of(String source, String message) {
        return new ConfigException(source, List.of(new ConfigProblem("", 0, 0, message)));
    }

    /** The file name or spec the config came from, as used in messages. */
    public String source() {
        return source;
    }

    public List<ConfigProblem> problems() {
        return problems;
    }

    /** One line per problem: "config.json:12:9: /mask/and/2/documents/lengths: document lengths sum to ...". */
    @Override
    public String getMessage() {
        return problems.stream().map(p -> p.format(source)).collect(Collectors.joining("\n"));
    }
}
