package saw.engine.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rows of docs/reliability.md, written by the tests that measured them: each row goes to
 * {@code target/reliability/ID.txt} of the module under test, and the tests module assembles them into the doc
 * (saw.tests.ReliabilityDocTest). Everything but {@code measured} must come out the same on every run with the same
 * seed, because that is what the doc check compares; timings go in {@code measured}.
 */
public final class ReliabilityLog {
    /** Where a module's rows go, relative to the module (surefire runs tests there). */
    public static final Path FOLDER = Path.of("target", "reliability");

    private ReliabilityLog() {}

    /**
     * One row of the doc's table.
     *
     * @param section the table it belongs to, e.g. "Config inputs"
     * @param order where it goes: sections and rows are sorted by it (sections by their smallest)
     * @param tried the fault or bad input, e.g. "byte flips in presets and nasty configs"
     * @param cases how many cases were tried
     * @param did what saw did with them, with counts
     * @param lost what was lost ("nothing" when nothing was)
     * @param measured timings and other numbers that vary from run to run
     */
    public record Row(String section, int order, String tried, long cases, String did, String lost, String measured) {
        public Row {
            for (String s : new String[] {section, tried, did, lost, measured}) {
                if (s.contains("\n") || s.contains("|")) {
                    throw new IllegalArgumentException("a reliability row holds one line without '|': " + s);
                }
            }
        }
    }

    /** Writes row {@code id} (a file name stem, unique across modules). */
    public static void write(String id, Row row) {
        String text = "section=" + row.section() + "\norder=" + row.order() + "\ntried=" + row.tried() + "\ncases=" + row.cases()
                + "\ndid=" + row.did() + "\nlost=" + row.lost() + "\nmeasured=" + row.measured() + "\n";
        try {
            Files.createDirectories(FOLDER);
            Files.writeString(FOLDER.resolve(id + ".txt"), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the reliability row " + id, e);
        }
    }
}
