package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import saw.engine.io.AtomicFiles;

/**
 * docs/reliability.md, assembled from the rows the reliability tests of the other modules wrote to their
 * {@code target/reliability/} folders (this module's tests run after theirs). With {@code -Dsaw.writeReliabilityDoc=true}
 * it writes the doc; otherwise it checks that the doc lists the same faults and inputs, with nothing lost, as the
 * tests just tried (counts and timings may drift between regenerations; the tests themselves fail on any loss).
 */
class ReliabilityDocTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path DOC = ROOT.resolve("docs").resolve("reliability.md");

    /** One row as a test wrote it. */
    record Row(String section, int order, String tried, long cases, String did, String lost, String measured) {
        String line() {
            return "| " + tried + " | " + String.format(Locale.ROOT, "%,d", cases) + " | " + did + " | " + lost + " | " + measured + " |";
        }

        /** What the check compares: the fault or input tried, and what was lost. */
        String identity() {
            return section + " | " + tried + " | " + lost;
        }
    }

    @Test
    void theReliabilityDocIsAssembledFromTheTestsRows() throws IOException {
        List<Row> rows = readRows();
        Assumptions.assumeFalse(rows.isEmpty(), "no reliability rows in */target/reliability: run the other modules' tests first (mvn verify)");
        String doc = render(rows);
        if (Boolean.getBoolean("saw.writeReliabilityDoc")) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            AtomicFiles.write(DOC, out -> out.write(bytes));
            return;
        }
        Assumptions.assumeTrue(System.getProperty("saw.test.seed") == null, "rows made with another seed are not compared");
        assertTrue(Files.exists(DOC), DOC + " is missing; write it with mvn -B verify -Dsaw.writeReliabilityDoc=true");
        List<String> inDoc = identities(Files.readString(DOC, StandardCharsets.UTF_8));
        List<String> tried = rows.stream().map(Row::identity).toList();
        assertEquals(tried, inDoc, "docs/reliability.md is out of date; regenerate it with mvn -B verify -Dsaw.writeReliabilityDoc=true");
    }

    private static List<Row> readRows() throws IOException {
        List<Row> rows = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path folder : modules.map(m -> m.resolve("target").resolve("reliability")).filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.list(folder)) {
                    for (Path f : files.filter(f -> f.toString().endsWith(".txt")).sorted().toList()) {
                        rows.add(parse(f));
                    }
                }
            }
        }
        Map<String, Integer> sectionOrder = new LinkedHashMap<>();
        for (Row r : rows) {
            sectionOrder.merge(r.section(), r.order(), Math::min);
        }
        rows.sort(Comparator.comparing((Row r) -> sectionOrder.get(r.section())).thenComparing(Row::order).thenComparing(Row::tried));
        return rows;
    }

    private static Row parse(Path f) throws IOException {
        Map<String, String> kv = new LinkedHashMap<>();
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                kv.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return new Row(kv.get("section"), Integer.parseInt(kv.get("order")), kv.get("tried"), Long.parseLong(kv.get("cases")),
                kv.get("did"), kv.get("lost"), kv.getOrDefault("measured", ""));
    }

    static String render(List<Row> rows) throws IOException {
        StringBuilder s = new StringBuilder();
        s.append("# Reliability: the faults and bad input saw was tried with\n\n");
        s.append("Written by the tests, not by hand: each row comes from the test that tried it (it writes the row to its\n");
        s.append("module's `target/reliability/`), and `ReliabilityDocTest` in the tests module assembles this file. Regenerate\n");
        s.append("it with `mvn -B clean verify -Dsaw.writeReliabilityDoc=true`; a plain `mvn verify` checks that it lists the\n");
        s.append("same faults and inputs, with nothing lost. \"Measured\" is from the last regeneration (machine and load vary).\n");
        long total = rows.stream().mapToLong(Row::cases).sum();
        s.append("\n").append(String.format(Locale.ROOT, "%,d", total)).append(" cases in all.\n");
        String section = null;
        for (Row r : rows) {
            if (!r.section().equals(section)) {
                section = r.section();
                s.append("\n## ").append(section).append("\n\n");
                s.append("| What was tried | Cases | What saw did | Lost | Measured |\n");
                s.append("|---|--:|---|---|---|\n");
            }
            s.append(r.line()).append('\n');
        }
        s.append(gpuDrill());
        return s.toString();
    }

    /**
     * The GPU fault drill's own report, when one was committed: it runs on a GPU machine ({@code bench/gpu-faults.sh}),
     * never in CI, so its output file is the record.
     */
    private static String gpuDrill() throws IOException {
        Path report = ROOT.resolve("docs").resolve("results").resolve("issue7").resolve("h200-fault-drill.txt");
        if (!Files.exists(report)) {
            return "";
        }
        StringBuilder s = new StringBuilder("\n## GPU faults on a real GPU (bench/gpu-faults.sh; not run in CI)\n\n");
        s.append("The drill's own report, from `").append(ROOT.relativize(report)).append("`: one process provokes each fault in turn\n");
        s.append("and then uses the GPU again. A kernel that writes to an illegal address poisons CUDA for the rest of the\n");
        s.append("process (CUDA cannot reset such a context), so after that saw says to restart it instead of failing later.\n\n```\n");
        for (String line : Files.readAllLines(report, StandardCharsets.UTF_8)) {
            if (!line.matches("step \\d+ (ok|WRONG): .*")) {
                s.append(line).append('\n');
            }
        }
        return s.append("```\n").toString();
    }

    /** The (section, tried, lost) of every table row in a doc, in order. */
    static List<String> identities(String doc) {
        List<String> out = new ArrayList<>();
        String section = "";
        for (String line : doc.split("\n")) {
            if (line.startsWith("## GPU faults on a real GPU")) {
                break;
            }
            if (line.startsWith("## ")) {
                section = line.substring(3).trim();
            } else if (line.startsWith("| ") && !line.startsWith("| What was tried")) {
                String[] cells = line.substring(2, line.length() - 2).split(" \\| ", -1);
                out.add(section + " | " + cells[0] + " | " + cells[3]);
            }
        }
        return out;
    }
}
