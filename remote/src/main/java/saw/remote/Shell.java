package saw.remote;

import java.util.List;
import java.util.stream.Collectors;

/** POSIX shell text for the remote commands: every word saw did not write itself goes in single quotes. */
final class Shell {
    /** The remote cache folder, honouring XDG_CACHE_HOME as other tools there do. */
    static final String CACHE = "C=\"${XDG_CACHE_HOME:-$HOME/.cache}/saw\"";

    private Shell() {}

    static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    static String quoteAll(List<String> words) {
        return words.stream().map(Shell::quote).collect(Collectors.joining(" "));
    }
}
